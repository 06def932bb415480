import { auditFanoutPort, type ConfigValues, definePlugin, KERNEL_API_VERSION } from '../../../kernel/index.ts';
import type { BaseConfig } from '../../../config/schema.ts';
import { deliveryOf, sinkInstances } from '../support/config.ts';
import { logStreamConfig, logStreamEntry } from './config.ts';
import { LogStreamSink, type LogStreamSettings } from './log-stream-sink.ts';

type Config = BaseConfig & ConfigValues<typeof logStreamConfig>;

export default definePlugin({
  id: 'audit-log-stream',
  apiVersion: KERNEL_API_VERSION,
  provides: auditFanoutPort,
  kind: 'log-stream',
  description: 'produces each audit event to a Kafka-protocol topic (idempotent, acks all)',
  config: logStreamConfig,
  instances: (all: Config) => {
    const { enabled, ...env } = all.audit.logStream;
    return sinkInstances('log-stream', all, { prefix: 'SVC_AUDIT_LOGSTREAM', entry: enabled ? env : undefined }, logStreamEntry, (entry, where): LogStreamSettings => {
      const brokers = entry.bootstrapServers.split(',').map((b) => b.trim()).filter(Boolean);
      if (brokers.length === 0) throw new Error(`${where} (log-stream sink): bootstrapServers is required`);
      const bad = brokers.find((b) => !/^[^\s:/]+:\d{1,5}$/.test(b));
      if (bad) throw new Error(`${where} (log-stream sink): bootstrapServers entry "${bad}" is not host:port`);
      return { name: entry.name, brokers, topic: entry.topic, clientId: entry.clientId, delivery: deliveryOf(entry, entry.name, all.node.dataDir) };
    });
  },
  create: ({ config, logger }) => new LogStreamSink(config, logger),
});
