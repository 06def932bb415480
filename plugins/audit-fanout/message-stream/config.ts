import { Type } from '@sinclair/typebox';
import { defineSettings } from '../../../kernel/index.ts';
import { auditSinks, deliverySettings, inEntries } from '../support/config.ts';

const DEFAULTS = { batchSize: 256, concurrency: 1 };

/**
 * The sink of the SVC_AUDIT_MSGSTREAM_* variables; an `audit.sinks` entry of kind message-stream has the same settings.
 */
export const messageStreamSection = Type.Object({
  enabled: Type.Boolean({
    description: 'Publish every audit event to a NATS JetStream stream (one sink named "message-stream").',
    default: false,
    env: 'SVC_AUDIT_MSGSTREAM_ENABLED',
  }),
  servers: inEntries(
    'required',
    Type.String({
      description: 'Comma list of nats:// (or tls://) server URLs.',
      default: '',
      env: 'SVC_AUDIT_MSGSTREAM_SERVERS',
    }),
  ),
  stream: inEntries(
    { pattern: '^[^.*>\\s]+$' },
    Type.String({
      description: 'JetStream stream that captures the subject.',
      default: 'SVC_AUDIT',
      env: 'SVC_AUDIT_MSGSTREAM_STREAM',
    }),
  ),
  subject: inEntries(
    { minLength: 1 },
    Type.String({
      description: 'Subject the events are published on.',
      default: 'svc.audit',
      env: 'SVC_AUDIT_MSGSTREAM_SUBJECT',
    }),
  ),
  autoCreateStream: Type.Boolean({
    description: 'Create the stream (file storage, this subject) when it does not exist.',
    default: false,
    env: 'SVC_AUDIT_MSGSTREAM_AUTO_CREATE_STREAM',
  }),
  credentialsFile: Type.String({
    description: 'NATS credentials file (JWT and NKey seed); empty: no credentials.',
    default: '',
    env: 'SVC_AUDIT_MSGSTREAM_CREDENTIALS_FILE',
  }),
  ...deliverySettings(DEFAULTS, 'SVC_AUDIT_MSGSTREAM'),
});

export const messageStreamSettings = defineSettings(
  Type.Object({ audit: Type.Object({ sinks: auditSinks, msgStream: messageStreamSection }) }),
);
