import { Type } from '@sinclair/typebox';
import { defineSettings } from '../../../kernel/index.ts';
import { auditSinks, deliverySettings, inEntries } from '../support/config.ts';

const DEFAULTS = { batchSize: 500, concurrency: 1 };

/** The sink of the SVC_AUDIT_LOGSTREAM_* variables; an `audit.sinks` entry of kind log-stream has the same settings. */
export const logStreamSection = Type.Object({
  enabled: Type.Boolean({
    description: 'Produce every audit event to a Kafka-protocol log (one sink named "log-stream").',
    default: false,
    env: 'SVC_AUDIT_LOGSTREAM_ENABLED',
  }),
  bootstrapServers: inEntries(
    'required',
    Type.String({
      description: 'Comma list of host:port brokers to bootstrap from.',
      default: '',
      env: 'SVC_AUDIT_LOGSTREAM_BOOTSTRAP_SERVERS',
    }),
  ),
  topic: inEntries(
    { minLength: 1 },
    Type.String({
      description: "Topic the events go to (created on the broker's side).",
      default: 'svc-audit',
      env: 'SVC_AUDIT_LOGSTREAM_TOPIC',
    }),
  ),
  clientId: inEntries(
    { minLength: 1 },
    Type.String({ description: 'Kafka client id.', default: 'svc-kms', env: 'SVC_AUDIT_LOGSTREAM_CLIENT_ID' }),
  ),
  ...deliverySettings(DEFAULTS, 'SVC_AUDIT_LOGSTREAM'),
});

export const logStreamSettings = defineSettings(
  Type.Object({ audit: Type.Object({ sinks: auditSinks, logStream: logStreamSection }) }),
);
