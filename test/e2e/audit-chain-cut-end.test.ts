import t from 'tap';
import { KINDS, NODE, someCalls, trail, verify } from '../helpers/audit-chain-trail.ts';

/**
 * An insider with write access to the audit database (not to the journal) cuts the newest rows off a
 * node's chain while the node is stopped: what is left is a valid, shorter chain, but the head the node
 * recorded in the journal at stop gives it away.
 */

for (const kind of KINDS) {
  t.test(
    `${kind}: cutting the newest rows off a chain whose node recorded its head at stop makes verification fail`,
    async (t) => {
      const at = await trail(t, kind);
      if (!at) return;
      await someCalls(at.service, 3);
      await at.service.stop();
      const [rowId, count] = at
        .sql(`select head_row_id, head_count from svc_nodes where node = '${NODE}'`, 'journal')
        .trim()
        .split('|')
        .map(Number);
      t.ok(rowId! > 0 && count! >= 5, `the node recorded its head at stop (row ${rowId}, ${count} rows)`);
      // While the node is down, its two newest rows go: what is left is a valid, shorter chain.
      at.sql(`delete from svc_audit where node = '${NODE}' and id >= ${rowId! - 1}`);
      const service = await at.restart();
      t.ok(
        service.logs.some((l) => /no longer holds the head it recorded/.test(l)),
        'the node says so at start',
      );
      const report = await verify(service, '?full=true');
      t.match(report, {
        valid: false,
        firstBroken: {
          node: NODE,
          reason: new RegExp(`before the head node ${NODE} recorded at row ${rowId}.*newest rows were removed`),
        },
      });
      await someCalls(service, 1);
      t.match(
        await verify(service, '?full=true'),
        { valid: false, firstBroken: { reason: /newest rows were removed/ } },
        'new rows written after the start do not hide it',
      );
    },
  );
}
