import t from 'tap';
import { NODE, unstarted } from '../helpers/audit-chain-trail.ts';
import { seedAudit } from '../helpers/audit-seed.ts';
import { startTestService } from '../helpers/service.ts';
import { until } from '../helpers/until.ts';

/**
 * Advisor explain reads an agent's records and up to 5,000 auto-responder rows: like a scan, one runs per
 * node at a time, and a caller looping it gets 429 with Retry-After instead of piling reads onto the
 * audit reader. Before, any number ran at once.
 */
for (const kind of ['sqlite', 'postgresql'] as const) {
  t.test(
    `${kind}: a second explanation while one runs is 429 TooManyRequests with Retry-After, and audited`,
    async (t) => {
      const at = await unstarted(t, kind);
      if (!at) return;
      const seeder = at.sink();
      await seeder.start();
      await seedAudit(seeder, 20_000, new Date());
      await seeder.stop();
      const service = await startTestService(
        { SVC_NODE_ID: NODE, SVC_RATE_LIMIT_ENABLED: 'false', ...(at.db?.env ?? {}) },
        { dir: at.dir },
      );
      t.teardown(() => service.stop());
      const auditor = service.client('auditor');
      const explain = () => auditor.get('/v1/advisor/explain/agent-1?maxEvents=1000');

      // Two at once, again until one arrives while the other runs (on a busy machine the second may arrive after the
      // first is done).
      const answers: Array<Awaited<ReturnType<typeof explain>>> = [];
      await until(
        async () => {
          const both = await Promise.all([explain(), explain()]);
          answers.push(...both);
          return both.some((r) => r.status === 429);
        },
        'an explanation to arrive while another runs',
        60_000,
      );
      t.same(
        [...new Set(answers.map((r) => r.status))].sort(),
        [200, 429],
        'one explanation ran, the other was refused (no other answer)',
      );
      const refused = answers.find((r) => r.status === 429)!;
      t.match(refused.body, {
        error: 'TooManyRequests',
        message: /advisor explanation is already running on this node/,
      });
      t.ok(Number(refused.headers.get('retry-after')) >= 1, `Retry-After: ${refused.headers.get('retry-after')}`);
      t.ok(
        answers.filter((r) => r.status === 200).every((r) => (r.body as { events: unknown[] }).events.length > 0),
        "every explanation that ran has the agent's events",
      );
      t.equal((await explain()).status, 200, 'once it is done, an explanation runs again');
      const audited = (await auditor.get('/v1/audit?op=Query&actor=auditor&limit=1000')).body.records as Array<{
        resource: string;
        outcome: string;
      }>;
      t.ok(
        audited.some((r) => r.resource === 'agent:agent-1' && r.outcome === 'TooManyRequests'),
        'the refusal is audited',
      );
    },
  );
}
