import path from 'node:path';
import { auditFanoutPort, type ConfigValues, definePlugin, KERNEL_API_VERSION } from '../../../kernel/index.ts';
import type { BaseConfig } from '../../../config/schema.ts';
import { deliveryOf, sinkInstances } from '../support/config.ts';
import { messageStreamConfig, messageStreamEntry } from './config.ts';
import { checkCredentialsFile } from './credentials.ts';
import { MessageStreamSink, type MessageStreamSettings } from './message-stream-sink.ts';

type Config = BaseConfig & ConfigValues<typeof messageStreamConfig>;

export default definePlugin({
  id: 'audit-message-stream',
  apiVersion: KERNEL_API_VERSION,
  provides: auditFanoutPort,
  kind: 'message-stream',
  description: 'publishes each audit event to a NATS JetStream stream (Nats-Msg-Id deduplication)',
  config: messageStreamConfig,
  instances: (all: Config) => {
    const { enabled, ...env } = all.audit.msgStream;
    return sinkInstances('message-stream', all, { prefix: 'SVC_AUDIT_MSGSTREAM', entry: enabled ? env : undefined }, messageStreamEntry, (entry, where): MessageStreamSettings => {
      const servers = entry.servers.split(',').map((s) => s.trim()).filter(Boolean);
      if (servers.length === 0) throw new Error(`${where} (message-stream sink): servers is required`);
      const bad = servers.find((s) => !/^(nats|tls|ws|wss):\/\/[^\s/]+$/.test(s));
      if (bad) throw new Error(`${where} (message-stream sink): server "${bad}" is not a nats:// or tls:// URL`);
      const credentialsFile = entry.credentialsFile ? path.resolve(entry.credentialsFile) : '';
      if (credentialsFile) {
        try {
          checkCredentialsFile(credentialsFile);
        } catch (err) {
          throw new Error(`${where} (message-stream sink): ${(err as Error).message}`);
        }
      }
      return {
        name: entry.name, servers, stream: entry.stream, subject: entry.subject, autoCreateStream: entry.autoCreateStream,
        credentialsFile, delivery: deliveryOf(entry, entry.name, all.node.dataDir),
      };
    });
  },
  create: ({ config, logger }) => new MessageStreamSink(config, logger),
});
