import { execFileSync } from 'node:child_process';
import path from 'node:path';
import t from 'tap';
import { ApiClient } from '../helpers/client.ts';
import { startTestService } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

// Two floods of 12,000 callers, each in a process of its own: minutes on a 2-core machine running other tests.
t.setTimeout(300_000);

const MiB = 1024 * 1024;
const root = path.resolve(import.meta.dirname, '../..');

interface Probe {
  subjects: number;
  statuses: number[];
  before: { heap: number; rss: number };
  after: { heap: number; rss: number };
}

/** Runs the flood in a process of its own (with --expose-gc) under a detector state budget. */
function probe(stateBytes: number): Probe {
  const out = execFileSync(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', 'test/fixtures/attacker-state-probe.ts'],
    {
      cwd: root,
      env: { ...process.env, PROBE_STATE_BYTES: String(stateBytes) },
      encoding: 'utf8',
      timeout: 300_000,
    },
  );
  return JSON.parse(out.trim().split('\n').at(-1)!) as Probe;
}
const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;

/**
 * 12,000 distinct 8 KB subjects and 2,000 distinct 8 KB key ids: what the service keeps about callers
 * (detector state, rate-limit buckets, auto-response cooldowns) stays within its bounds. Measured as the
 * live heap after full garbage collections; the same flood with an unbounded detector budget shows what
 * the bound prevents (the assertion could fail).
 */
t.test(
  'attacker-sized subjects and ids: live memory grows by the configured bound, not by what the attacker sends',
  async (t) => {
    const bound = 8 * MiB;
    const bounded = probe(bound);
    const unbounded = probe(4096 * MiB);
    t.same(bounded.statuses, [200], `${bounded.subjects} distinct 8 KB subjects were served`);
    const grew = bounded.after.heap - bounded.before.heap;
    const grewUnbounded = unbounded.after.heap - unbounded.before.heap;
    t.comment(
      `bounded (detectors.maxStateBytes ${mib(bound)}): live heap +${mib(grew)}, resident ${mib(bounded.before.rss)} -> ${mib(bounded.after.rss)}`,
    );
    t.comment(
      `unbounded: live heap +${mib(grewUnbounded)}, resident ${mib(unbounded.before.rss)} -> ${mib(unbounded.after.rss)}`,
    );
    // The detector budget, the rate limiter's 16 MiB of buckets, and 8 MiB for everything else a run leaves behind.
    const allowance = bound + 16 * MiB + 8 * MiB;
    t.ok(grew < allowance, `live heap grew ${mib(grew)}, within ${mib(allowance)}`);
    t.ok(grewUnbounded > 2 * grew, `without the bound the same flood keeps ${mib(grewUnbounded)}`);
  },
);

t.test('1 MB jtis are refused, never stored, and cannot reach authentication inside a header', async (t) => {
  const svc = await startTestService({ SVC_AUTH_KIND: 'hmac', SVC_AUTH_HMAC_SECRET: TEST_SECRET });
  t.teardown(() => svc.stop());
  const admin = new ApiClient(svc.url, { Authorization: `Bearer ${await mintToken({ sub: 'admin' })}` });
  const jti = 'j'.repeat(MiB - 64);
  for (let i = 0; i < 20; i++)
    t.equal((await admin.post('/v1/tokens/revoke', { jti: `${i}${jti}` })).body.error, 'InvalidField');
  const inHeader = await new ApiClient(svc.url, {
    Authorization: `Bearer ${await mintToken({ sub: 'x' }, { jti: 'j'.repeat(MiB) })}`,
  }).get('/v1/keys');
  t.equal(inHeader.status, 431);
});
