import { Type } from '@sinclair/typebox';
import { defineConfig } from '../../../kernel/index.ts';
import { auditSinksLeaf, deliveryLeaves, deliveryProperties } from '../support/config.ts';

const DEFAULTS = { batchSize: 256, concurrency: 1 };

export const messageStreamConfig = defineConfig({
  audit: {
    sinks: auditSinksLeaf,
    msgStream: {
      enabled: { doc: 'Publish every audit event to a NATS JetStream stream (one sink named "message-stream").', format: Boolean, default: false, env: 'SVC_AUDIT_MSGSTREAM_ENABLED' },
      servers: { doc: 'Comma list of nats:// (or tls://) server URLs.', format: String, default: '', env: 'SVC_AUDIT_MSGSTREAM_SERVERS' },
      stream: { doc: 'JetStream stream that captures the subject.', format: String, default: 'SVC_AUDIT', env: 'SVC_AUDIT_MSGSTREAM_STREAM' },
      subject: { doc: 'Subject the events are published on.', format: String, default: 'svc.audit', env: 'SVC_AUDIT_MSGSTREAM_SUBJECT' },
      autoCreateStream: { doc: 'Create the stream (file storage, this subject) when it does not exist.', format: Boolean, default: false, env: 'SVC_AUDIT_MSGSTREAM_AUTO_CREATE_STREAM' },
      credentialsFile: { doc: 'NATS credentials file (JWT and NKey seed); empty: no credentials.', format: String, default: '', env: 'SVC_AUDIT_MSGSTREAM_CREDENTIALS_FILE' },
      ...deliveryLeaves('SVC_AUDIT_MSGSTREAM', DEFAULTS),
    },
  },
});

/** An `audit.sinks` entry of kind message-stream. */
export const messageStreamEntry = {
  servers: Type.String(),
  stream: Type.String({ pattern: '^[^.*>\\s]+$', default: 'SVC_AUDIT' }),
  subject: Type.String({ minLength: 1, default: 'svc.audit' }),
  autoCreateStream: Type.Boolean({ default: false }),
  credentialsFile: Type.String({ default: '' }),
  ...deliveryProperties(DEFAULTS),
};
