import t from 'tap';
import { NODE, unstarted } from '../helpers/audit-chain-trail.ts';
import { seedAudit } from '../helpers/audit-seed.ts';
import { startTestService } from '../helpers/service.ts';
import { until } from '../helpers/until.ts';

/** One audit verification runs per node at a time: a caller looping verify cannot pile them up. */

for (const kind of ['sqlite', 'postgresql'] as const) {
  t.test(`${kind}: a second verification while one runs is 429 TooManyRequests with Retry-After`, async (t) => {
    const at = await unstarted(t, kind);
    if (!at) return;
    const { db, dir } = at;
    // A chain long enough that the first verification is still reading when the second arrives.
    const seeder = at.sink();
    await seeder.start();
    await seedAudit(seeder, 20_000, new Date());
    await seeder.stop();
    const service = await startTestService({ SVC_NODE_ID: NODE, ...(db?.env ?? {}) }, { dir });
    t.teardown(() => service.stop());
    const api = service.client('auditor');
    // Two at once, again until one arrives while the other runs: on a busy machine the second request can
    // reach the service only after the first has finished, which proves nothing either way.
    const answers: Array<Awaited<ReturnType<typeof api.get>>> = [];
    await until(
      async () => {
        const both = await Promise.all([api.get('/v1/audit/verify?full=true'), api.get('/v1/audit/verify?full=true')]);
        answers.push(...both);
        return both.some((r) => r.status === 429);
      },
      'a verification to arrive while another runs',
      60_000,
    );
    t.same(
      [...new Set(answers.map((r) => r.status))].sort(),
      [200, 429],
      'one verification ran, the other was refused (no other answer)',
    );
    const refused = answers.find((r) => r.status === 429)!;
    t.match(refused.body, { error: 'TooManyRequests', message: /audit verification is already running on this node/ });
    t.ok(Number(refused.headers.get('retry-after')) >= 1, `Retry-After: ${refused.headers.get('retry-after')}`);
    t.ok(
      answers.filter((r) => r.status === 200).every((r) => (r.body as { valid?: boolean }).valid === true),
      'every verification that ran says valid',
    );
    t.equal((await api.get('/v1/audit/verify')).status, 200, 'once it is done, a verification runs again');
  });
}
