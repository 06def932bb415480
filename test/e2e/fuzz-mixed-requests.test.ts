import t, { type Test } from 'tap';
import { freshDatabase } from '../helpers/databases.ts';
import { auditMismatches } from '../helpers/fuzz/audit-oracle.ts';
import { FUZZ_ENV } from '../helpers/fuzz/cast.ts';
import { runFuzz } from '../helpers/fuzz/run.ts';
import { connect } from '../helpers/fuzz/transport.ts';
import { startTestService } from '../helpers/service.ts';

// The generator of `npm run bench:fuzz`, with a small seeded run: what holds for 100,000 requests there
// must hold here for every request (timings are the bench's business, never asserted here).
const REQUESTS = Number(process.env.SVC_TEST_FUZZ_REQUESTS ?? 3_000);
// 4,500 requests and the audit trail read back take some 20 s alone, and several times that on a busy machine.
t.setTimeout(300_000);
const SEED = Number(process.env.SVC_TEST_FUZZ_SEED ?? 20_261_127);

async function fuzz(t: Test, env: Record<string, string>, requests: number): Promise<void> {
  const svc = await startTestService({ ...FUZZ_ENV, ...env });
  const pool = connect(svc.url, 16);
  t.teardown(async () => {
    await pool.close();
    await svc.stop();
  });
  const { cast, result } = await runFuzz(svc.url, pool, { requests, connections: 16, seed: SEED });

  t.same(result.serverErrors, [], 'no request was answered 5xx');
  t.same(result.connectionFailures, [], 'no connection failed');
  t.same(result.badErrorBodies, [], 'every error answer is {error, message}');
  const hostile = result.kinds.filter((k) => k.startsWith('hostile:')).length;
  t.ok(hostile > requests * 0.15 && hostile < requests * 0.35, `a quarter of the requests were hostile (${hostile})`);
  const ok = Array.from(result.statuses).filter((s) => s >= 200 && s < 300).length;
  t.ok(ok > requests * 0.5, `most valid requests succeeded (${ok} 2xx answers)`);
  for (const route of [
    'POST /v1/keys/:id/encrypt',
    'POST /v1/keys/:id/sign',
    'GET /v1/audit',
    'GET /v1/audit/verify',
    'POST /v1/agents/issue',
    'DELETE /v1/keys/:id',
    'GET /v1/keys',
    'POST /v1/keys/:id/data-key',
    'POST /v1/keys/:id/reencrypt',
  ]) {
    t.ok(result.routes.includes(route), `the mix called ${route}`);
  }

  const ready = await fetch(`${svc.url}/readyz`);
  t.equal(ready.status, 200, 'the service is still ready');
  const verify = await fetch(`${svc.url}/v1/audit/verify?full=true`, { headers: cast.auth('auditor') });
  const verdict = await verify.json();
  t.equal(verify.status, 200);
  t.equal(verdict.valid, true, `the audit chain verifies (${JSON.stringify(verdict.firstBroken ?? {})})`);
  t.ok(verdict.checked >= requests * 0.5, `over the rows the run wrote (${verdict.checked} checked)`);

  const audited = await auditMismatches(pool, cast, result);
  t.same(
    audited.mismatches,
    [],
    'every call that reached the pipeline has exactly one audit record, and it says what the answer said',
  );
  t.ok(audited.checked > requests * 0.8, `most calls reached the pipeline (${audited.checked})`);
}

t.test(
  `${REQUESTS} mixed valid and hostile requests on SQLite: no 5xx, every error is {error, message}, one audit record per call, still ready, chain valid`,
  (t) => fuzz(t, { SVC_JOURNAL_KIND: 'rdb-embedded' }, REQUESTS),
);

t.test(`${Math.round(REQUESTS / 2)} of them on PostgreSQL`, async (t) => {
  const db = await freshDatabase(t, 'postgresql');
  if (db) await fuzz(t, db.env, Math.round(REQUESTS / 2));
});
