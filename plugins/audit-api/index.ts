import {
  type AuditSink,
  auditSinkPort,
  defineOperation,
  definePlugin,
  KERNEL_API_VERSION,
  OneAtATime,
  type OperationContribution,
  operationsPort,
  SvcError,
} from '../../kernel/index.ts';
import { AuditPageSchema, AuditQueryParams, AuditVerificationSchema, AuditVerifyParams } from '../../schemas/audit.ts';
import { parseAuditQuery, timestamp } from './audit-query.ts';

// A verification reads and hashes the whole trail: one at a time per node (per primary sink), a second caller is 429.
const verifications = new WeakMap<AuditSink, OneAtATime>();
const verificationGate = (sink: AuditSink): OneAtATime => {
  let gate = verifications.get(sink);
  if (!gate) verifications.set(sink, (gate = new OneAtATime('an audit verification')));
  return gate;
};

export default definePlugin({
  id: 'audit-api',
  apiVersion: KERNEL_API_VERSION,
  provides: operationsPort,
  description: 'GET /v1/audit and /v1/audit/verify over a queryable primary sink',
  dependsOn: { sink: auditSinkPort },
  create: ({ deps }): OperationContribution => ({
    groups: { Audit: 'Read the audit trail and check its hash chains (Human only; needs a queryable audit sink).' },
    operations: [
      defineOperation({
        id: 'QueryAudit',
        operation: 'Query',
        description:
          'Read the audit trail, newest first: who did what to which key, when, ' +
          'with what outcome and context (risk stamps, door, model and prompt). ' +
          'Filter by actor, key, operation, promptId and time; page with limit ' +
          'and the next cursor. Use it to see what an agent or a key has been ' +
          'doing. Changes nothing. Human callers only (PermissionDenied ' +
          'otherwise); FeatureNotSupported when the audit store cannot be queried.',
        group: 'Audit',
        summary: 'Read the audit trail, newest first (Human only)',
        errors: ['FeatureNotSupported'],
        input: AuditQueryParams,
        output: AuditPageSchema,
        http: { method: 'GET', path: '/v1/audit' },
        attributes: { humanOnly: true, readOnly: true },
        resource: () => 'audit',
        handle: async (input) => {
          const query = parseAuditQuery(input);
          if (!deps.sink.query)
            throw new SvcError(
              'FeatureNotSupported',
              'the primary audit sink (audit.kind stdout) cannot be queried; use rdb-embedded or a database sink',
            );
          const page = await deps.sink.query(query);
          return {
            result: {
              records: page.records,
              limit: query.limit,
              offset: query.offset,
              hasMore: page.hasMore,
              ...(page.next ? { next: page.next } : {}),
            },
          };
        },
      }),
      defineOperation({
        id: 'VerifyAudit',
        operation: 'Query',
        description:
          "Recompute the audit trail's per-node hash chains and check them " +
          'against the node registry: reports whether the trail is intact and, if ' +
          'not, where a row was changed, removed or added. Changes nothing but ' +
          'reads the whole trail (one verification per node at a time). Human ' +
          'callers only; FeatureNotSupported when the audit store keeps no hash chain.',
        group: 'Audit',
        summary: "Recompute the audit trail's per-node hash chains (Human only)",
        errors: ['FeatureNotSupported'],
        input: AuditVerifyParams,
        output: AuditVerificationSchema,
        http: { method: 'GET', path: '/v1/audit/verify' },
        attributes: { humanOnly: true, readOnly: true, toolName: false },
        resource: () => 'audit',
        handle: async (input) => {
          if (!deps.sink.verify)
            throw new SvcError(
              'FeatureNotSupported',
              'the primary audit sink (audit.kind stdout) keeps no hash chain; use rdb-embedded or a database sink',
            );
          const sink = deps.sink;
          const query = {
            node: input.node || undefined,
            since: timestamp(input.since, 'since'),
            until: timestamp(input.until, 'until'),
            full: input.full === 'true',
          };
          const report = await verificationGate(sink).run(() => sink.verify!(query));
          return {
            result: report,
            audit: {
              context: { valid: String(report.valid), checked: String(report.checked), full: String(query.full) },
            },
          };
        },
      }),
    ],
  }),
});
