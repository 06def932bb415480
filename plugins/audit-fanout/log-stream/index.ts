import { auditFanoutPort, definePlugin, KERNEL_API_VERSION } from '../../../kernel/index.ts';
import { deliveryOf, sinkInstances } from '../support/config.ts';
import { logStreamSection, logStreamSettings } from './config.ts';
import { LogStreamSink, type LogStreamSettings } from './log-stream-sink.ts';

export default definePlugin({
  id: 'audit-log-stream',
  apiVersion: KERNEL_API_VERSION,
  provides: auditFanoutPort,
  kind: 'log-stream',
  description: 'produces each audit event to a Kafka-protocol topic (idempotent, acks all)',
  settings: logStreamSettings,
  instances: ({ audit }, { dataDir }) =>
    sinkInstances(
      'log-stream',
      logStreamSection,
      { section: audit.logStream, prefix: 'SVC_AUDIT_LOGSTREAM', sinks: audit.sinks },
      (entry, where): LogStreamSettings => {
        const brokers = entry.bootstrapServers
          .split(',')
          .map((b) => b.trim())
          .filter(Boolean);
        if (brokers.length === 0) throw new Error(`${where} (log-stream sink): bootstrapServers is required`);
        const bad = brokers.find((b) => !/^[^\s:/]+:\d{1,5}$/.test(b));
        if (bad) throw new Error(`${where} (log-stream sink): bootstrapServers entry "${bad}" is not host:port`);
        return {
          name: entry.name,
          brokers,
          topic: entry.topic,
          clientId: entry.clientId,
          delivery: deliveryOf(entry, entry.name, dataDir),
        };
      },
    ),
  create: ({ config, logger }) => new LogStreamSink(config, logger),
});
