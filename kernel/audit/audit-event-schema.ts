import { Type, type Static } from '@sinclair/typebox';

/**
 * The canonical audit event, version 1: the one shape every secondary sink receives (webhook body, Kafka
 * message value, NATS message data) and the shape a primary SQL sink's hash chain covers. Served as
 * JSON Schema at /docs/audit-event.schema.json. A new field or a changed meaning bumps schemaVersion.
 */
export const AuditEventSchema = Type.Object(
  {
    schemaVersion: Type.Literal(1),
    id: Type.String({ format: 'uuid', description: 'unique per event; receivers deduplicate on it' }),
    occurredAt: Type.String({ format: 'date-time', description: 'ISO 8601 UTC with milliseconds' }),
    node: Type.String({ description: 'the service node that wrote the event (node.id)' }),
    principal: Type.Object(
      {
        subject: Type.String({ maxLength: 256 }),
        kind: Type.Union([Type.Literal('Human'), Type.Literal('Service'), Type.Literal('Agent')]),
      },
      { additionalProperties: false },
    ),
    operation: Type.String({ description: 'the operation name (Create, Encrypt, Sign ...)' }),
    resource: Type.String({ maxLength: 300, description: 'key id, name:<name>, agent:<id>, invalid:<hash>, ...' }),
    outcome: Type.String({ description: 'Success or an error code of the catalogue' }),
    context: Type.Record(Type.String(), Type.String(), {
      description: 'bounded string facts; never key material, plaintext or tokens',
    }),
    correlationId: Type.String({ maxLength: 128, description: 'the request id; Kafka message key' }),
    prevHash: Type.Optional(
      Type.String({ pattern: '^[0-9a-f]{64}$', description: "primary SQL sinks: hash of the node's previous event" }),
    ),
    hash: Type.Optional(
      Type.String({
        pattern: '^[0-9a-f]{64}$',
        description: 'primary SQL sinks: SHA-256 of prevHash then the canonical JSON of the event without hash',
      }),
    ),
  },
  { $id: 'https://svc-kms.dev/schemas/audit-event/v1', title: 'AuditEvent', additionalProperties: false },
);

export type AuditEvent = Static<typeof AuditEventSchema>;

export const AUDIT_EVENT_SCHEMA_VERSION = 1;
