import { definePlugin, KERNEL_API_VERSION } from '../../kernel/define-plugin.ts';
import { SvcError } from '../../kernel/errors.ts';
import { guarded, routesPort, type RouteContribution } from '../../kernel/http/route.ts';
import { auditSinkPort } from '../../kernel/ports/audit-sink.ts';
import { AuditPageSchema, AuditQueryParams } from '../../schemas/audit.ts';
import { parseAuditQuery } from './audit-query.ts';

export default definePlugin({
  id: 'audit-api',
  apiVersion: KERNEL_API_VERSION,
  provides: routesPort,
  description: 'GET /v1/audit over a queryable primary sink',
  dependsOn: { sink: auditSinkPort },
  create: ({ deps }): RouteContribution => ({
    routes: [
      guarded({
        method: 'GET', path: '/v1/audit', tag: 'Audit', summary: 'Read the audit trail, newest first (Human only)', operation: 'Query', humanOnly: true,
        query: AuditQueryParams, response: AuditPageSchema, errors: ['FeatureNotSupported'],
        resource: () => 'audit',
        handler: async (req) => {
          const query = parseAuditQuery(req.query);
          if (!deps.sink.query) throw new SvcError('FeatureNotSupported', 'the primary audit sink (audit.kind stdout) cannot be queried; use rdb-embedded or a database sink');
          const page = await deps.sink.query(query);
          return { body: { records: page.records, limit: query.limit, offset: query.offset, hasMore: page.hasMore } };
        },
      }),
    ],
  }),
});
