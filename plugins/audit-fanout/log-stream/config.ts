import { Type } from '@sinclair/typebox';
import { defineConfig } from '../../../kernel/index.ts';
import { auditSinksLeaf, deliveryLeaves, deliveryProperties } from '../support/config.ts';

const DEFAULTS = { batchSize: 500, concurrency: 1 };

export const logStreamConfig = defineConfig({
  audit: {
    sinks: auditSinksLeaf,
    logStream: {
      enabled: { doc: 'Produce every audit event to a Kafka-protocol log (one sink named "log-stream").', format: Boolean, default: false, env: 'SVC_AUDIT_LOGSTREAM_ENABLED' },
      bootstrapServers: { doc: 'Comma list of host:port brokers to bootstrap from.', format: String, default: '', env: 'SVC_AUDIT_LOGSTREAM_BOOTSTRAP_SERVERS' },
      topic: { doc: 'Topic the events go to (created on the broker\'s side).', format: String, default: 'svc-audit', env: 'SVC_AUDIT_LOGSTREAM_TOPIC' },
      clientId: { doc: 'Kafka client id.', format: String, default: 'svc-kms', env: 'SVC_AUDIT_LOGSTREAM_CLIENT_ID' },
      ...deliveryLeaves('SVC_AUDIT_LOGSTREAM', DEFAULTS),
    },
  },
});

/** An `audit.sinks` entry of kind log-stream. */
export const logStreamEntry = {
  bootstrapServers: Type.String(),
  topic: Type.String({ minLength: 1, default: 'svc-audit' }),
  clientId: Type.String({ minLength: 1, default: 'svc-kms' }),
  ...deliveryProperties(DEFAULTS),
};
