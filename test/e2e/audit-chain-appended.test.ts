import t from 'tap';
import { chainHash } from '../../kernel/audit/canonical-event.ts';
import { forgedRow, insertRow, KINDS, NODE, someCalls, trail, verify } from '../helpers/audit-chain-trail.ts';

/**
 * An insider with write access to the audit database (not to the journal) chains rows of their own onto
 * a stopped node's chain, exactly as the node would (its hash function is public): the head the node
 * closed in the journal at stop gives it away.
 */

for (const kind of KINDS) {
  t.test(
    `${kind}: rows chained onto a stopped node's chain (its hash function is public) make verification fail, also once the node runs again`,
    async (t) => {
      const at = await trail(t, kind);
      if (!at) return;
      await someCalls(at.service, 2);
      await at.restart();
      await someCalls(at.service, 1);
      t.match(await verify(at.service, '?full=true'), { valid: true }, 'a clean stop and start leaves a valid chain');
      await at.service.stop();
      t.equal(
        at.sql(`select head_closed from svc_nodes where node = '${NODE}'`, 'journal').trim().replace(/^t$/, '1'),
        '1',
        'the node closed its head at stop',
      );

      // While the node is down, an insider appends a row that links to its newest row, exactly as the node would.
      const [prevHash] = at
        .sql(`select hash from svc_audit where node = '${NODE}' order by id desc limit 1`)
        .trim()
        .split('|');
      const row = forgedRow({ node: NODE });
      const hash = chainHash({
        schemaVersion: 1,
        id: row.event_id,
        occurredAt: row.occurred_at,
        node: NODE,
        principal: { subject: row.actor, kind: 'Human' },
        operation: row.operation,
        resource: row.resource,
        outcome: row.outcome,
        context: {},
        correlationId: row.correlation_id,
        prevHash: prevHash!,
      });
      at.sql(insertRow({ ...row, prev_hash: prevHash!, hash }));
      const service = await at.restart();
      t.ok(
        service.logs.some((l) => /rows were added to the audit chain of this node while it was stopped/.test(l)),
        'the node says so at start',
      );
      const reason = new RegExp(`after node ${NODE} stopped`);
      t.match(await verify(service, '?full=true'), {
        valid: false,
        firstBroken: { id: row.event_id, node: NODE, reason },
      });
      await someCalls(service, 1);
      await service.stop();
      const again = await at.restart();
      t.match(
        await verify(again, '?full=true'),
        { valid: false, firstBroken: { id: row.event_id, reason } },
        'rows written since, and another restart, do not hide it',
      );
    },
  );
}
