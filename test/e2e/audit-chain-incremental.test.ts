import t from 'tap';
import { KINDS, NODE, someCalls, trail, verify } from '../helpers/audit-chain-trail.ts';

/**
 * Verification goes on from where the last one ended, and notices when that row was changed since.
 */

for (const kind of KINDS) {
  t.test(`${kind}: verification goes on from the last verified row; full=true checks every row again`, async (t) => {
    const at = await trail(t, kind);
    if (!at) return;
    await someCalls(at.service, 3);
    const rows = () => Number(at.sql(`select count(*) from svc_audit where node = '${NODE}'`).trim());
    const total = rows();
    t.match(await verify(at.service), { valid: true, checked: total });
    t.match(
      await verify(at.service),
      { valid: true, checked: 1 },
      "only the one row written since: the first verification's own record",
    );
    const all = rows();
    t.match(await verify(at.service, '?full=true'), { valid: true, checked: all }, 'full=true checks every row');

    // The row the last verification ended on (the newest but one: the newest is that verification's own record) must
    // still be as it was.
    const ended = at
      .sql(`select event_id from svc_audit where node = '${NODE}' order by id desc limit 1 offset 1`)
      .trim();
    at.sql(`update svc_audit set outcome = 'PermissionDenied' where event_id = '${ended}'`);
    t.match(await verify(at.service), {
      valid: false,
      firstBroken: { id: ended, reason: /the last one verified before, was changed since/ },
    });
    t.match(await verify(at.service, '?full=true'), { valid: false, firstBroken: { id: ended, reason: /edited/ } });
  });
}
