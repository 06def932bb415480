import t from 'tap';
import { chainHash, GENESIS_HASH } from '../../kernel/audit/canonical-event.ts';
import { forgedRow, insertRow, KINDS, NODE, someCalls, trail, verify } from '../helpers/audit-chain-trail.ts';

/**
 * An insider with write access to the audit database (not to the journal) adds rows to the trail: a row
 * without a hash or a node, a self-consistent chain under a node id no node ever started as. Verification
 * must say `valid: false` with the reason; each was `valid: true` in 0.2.0.
 */

for (const kind of KINDS) {
  t.test(`${kind}: a row inserted without a hash, or without a node, makes verification fail`, async (t) => {
    const at = await trail(t, kind);
    if (!at) return;
    await someCalls(at.service, 2);
    t.match(await verify(at.service), { valid: true });

    const noHash = forgedRow({ node: NODE });
    at.sql(insertRow(noHash));
    const listed = (await at.service.client('auditor').get('/v1/audit?op=Destroy')).body.records;
    t.ok(
      listed.some((r: { id: string }) => r.id === noHash.event_id),
      'the forged row shows in GET /v1/audit',
    );
    t.match(await verify(at.service), {
      valid: false,
      firstBroken: { id: noHash.event_id, node: NODE, reason: /no hash/ },
    });

    at.sql(`delete from svc_audit where event_id = '${noHash.event_id}'`);
    const noNode = forgedRow({ node: null });
    at.sql(insertRow(noNode));
    t.match(await verify(at.service), { valid: false, firstBroken: { id: noNode.event_id, reason: /no node/ } });
    t.match(
      await verify(at.service, '?full=true'),
      { valid: false, firstBroken: { id: noNode.event_id, reason: /no node/ } },
      'a full verification too',
    );
  });

  t.test(
    `${kind}: a self-consistent chain under a node id no node ever started as makes verification fail`,
    async (t) => {
      const at = await trail(t, kind);
      if (!at) return;
      await someCalls(at.service, 1);
      // Chained exactly as a node would chain them, with the service's own hash function: every link holds.
      let prevHash = GENESIS_HASH;
      const ghost = Array.from({ length: 3 }, (_, i) => {
        const row = forgedRow({ node: 'kms-ghost', occurred_at: new Date(Date.now() + i).toISOString() });
        const hash = chainHash({
          schemaVersion: 1,
          id: row.event_id,
          occurredAt: row.occurred_at,
          node: 'kms-ghost',
          principal: { subject: row.actor, kind: 'Human' },
          operation: row.operation,
          resource: row.resource,
          outcome: row.outcome,
          context: {},
          correlationId: row.correlation_id,
          prevHash,
        });
        const stored = { ...row, prev_hash: prevHash, hash };
        prevHash = hash;
        return stored;
      });
      for (const row of ghost) at.sql(insertRow(row));
      t.match(await verify(at.service), {
        valid: false,
        firstBroken: { id: ghost[0]!.event_id, node: 'kms-ghost', reason: /not in the journal's node registry/ },
      });
      t.match(await verify(at.service, `?node=${NODE}`), { valid: true }, "the real node's chain is intact");
      const registered = at.sql('select node from svc_nodes', 'journal').trim().split('\n');
      t.same(registered, [NODE], 'the journal knows only the node that started');
    },
  );
}
