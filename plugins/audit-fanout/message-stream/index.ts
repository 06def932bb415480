import path from 'node:path';
import { auditFanoutPort, definePlugin, KERNEL_API_VERSION } from '../../../kernel/index.ts';
import { deliveryOf, sinkInstances } from '../support/config.ts';
import { messageStreamSection, messageStreamSettings } from './config.ts';
import { checkCredentialsFile } from './credentials.ts';
import { MessageStreamSink, type MessageStreamSettings } from './message-stream-sink.ts';

export default definePlugin({
  id: 'audit-message-stream',
  apiVersion: KERNEL_API_VERSION,
  provides: auditFanoutPort,
  kind: 'message-stream',
  description: 'publishes each audit event to a NATS JetStream stream (Nats-Msg-Id deduplication)',
  settings: messageStreamSettings,
  instances: ({ audit }, { dataDir }) => {
    const sources = { section: audit.msgStream, prefix: 'SVC_AUDIT_MSGSTREAM', sinks: audit.sinks };
    return sinkInstances('message-stream', messageStreamSection, sources, (entry, where): MessageStreamSettings => {
      const servers = entry.servers
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
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
        name: entry.name,
        servers,
        stream: entry.stream,
        subject: entry.subject,
        autoCreateStream: entry.autoCreateStream,
        credentialsFile,
        delivery: deliveryOf(entry, entry.name, dataDir),
      };
    });
  },
  create: ({ config, logger }) => new MessageStreamSink(config, logger),
});
