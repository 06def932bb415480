import { Type } from '@sinclair/typebox';
import { StringEnum } from './string-enum.ts';

export const AuditRecordSchema = Type.Object(
  {
    id: Type.String({ description: 'unique record id (rows written before 0.2 read as row-<n>)' }),
    occurredAt: Type.String({ description: 'ISO 8601 UTC' }),
    principal: Type.Object({ subject: Type.String(), kind: Type.String({ description: 'Human | Service | Agent' }) }),
    operation: Type.String(),
    resource: Type.String({ description: 'key id, name:<name>, agent:<id> or key:<id>' }),
    outcome: Type.String({ description: 'Success or an error code' }),
    context: Type.Record(Type.String(), Type.String()),
    correlationId: Type.String(),
  },
  { title: 'AuditRecord' },
);

export const AuditQueryParams = Type.Object({
  since: Type.Optional(Type.String({ description: 'RFC 3339 date-time (or a date: midnight UTC), inclusive' })),
  until: Type.Optional(Type.String({ description: 'RFC 3339 date-time (or a date: midnight UTC), exclusive' })),
  actor: Type.Optional(Type.String()),
  key: Type.Optional(Type.String({ description: 'resource, for example a key id' })),
  op: Type.Optional(Type.String({ description: 'an Operation name' })),
  promptId: Type.Optional(
    Type.String({
      maxLength: 128,
      description: 'records of calls that named this prompt id (X-Svc-Prompt-Id; context agent.promptId)',
    }),
  ),
  limit: Type.Optional(Type.Integer({ description: 'clamped to 1..1000; default 100' })),
  offset: Type.Optional(Type.Integer({ description: 'below 0 reads as 0; default 0' })),
  before: Type.Optional(
    Type.String({
      maxLength: 100,
      description:
        'the `next` of the previous page: this page starts right after its last ' +
        'record (a seek, so reading far back costs no more per page; offset ' +
        'then counts from there)',
    }),
  ),
});

export const AuditPageSchema = Type.Object(
  {
    records: Type.Array(AuditRecordSchema),
    limit: Type.Integer(),
    offset: Type.Integer(),
    hasMore: Type.Boolean(),
    next: Type.Optional(Type.String({ description: 'with hasMore: a cursor to pass as `before` for the next page' })),
  },
  { title: 'AuditPage' },
);

export const AuditVerifyParams = Type.Object({
  node: Type.Optional(Type.String({ maxLength: 128, description: "one node's chain; default every node" })),
  since: Type.Optional(
    Type.String({
      description: 'RFC 3339 date-time (or a date: midnight UTC), inclusive: the first row checked anchors the chain',
    }),
  ),
  until: Type.Optional(Type.String({ description: 'RFC 3339 date-time (or a date: midnight UTC), exclusive' })),
  full: Type.Optional(
    StringEnum(['true', 'false'], {
      description:
        'true: check every row again. Default: only rows after where this ' +
        "node's last verification of each chain ended (that row must still be " +
        'as it was); a window (since, until) is always checked in full',
    }),
  ),
});

export const AuditVerificationSchema = Type.Object(
  {
    valid: Type.Boolean(),
    checked: Type.Integer({
      description:
        'chained rows recomputed by this verification (without full, only those ' +
        'after the last verified row of each chain)',
    }),
    nodes: Type.Array(Type.String()),
    firstBroken: Type.Optional(Type.Object({ id: Type.String(), node: Type.String(), reason: Type.String() })),
  },
  { title: 'AuditVerification' },
);
