import { mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { activeKey, load, machine, PINNED, ROOT, start } from './lib/harness.ts';
import { CLIENT_CONNECTIONS, measureOpenLoop, type OpenLoopResult } from './lib/open-loop-measure.ts';

/**
 * `npm run bench:open-loop`: what the service does under traffic that arrives on its own schedule, as
 * independent clients do. For the service in memory and on SQLite, after a 10 s warm-up: a closed-loop load
 * (autocannon, 50 connections) measures the rate encrypt 1 KiB sustains, then the same process takes
 * requests started at BENCH_OPEN_LOOP_SHARE (default 80%) of that rate for BENCH_OPEN_LOOP_SECONDS (default
 * 60), whatever the answers, then a second closed loop. Latency is measured from when each request was due.
 * Goals: p99 under 50 ms, no growth of the requests in flight over the run, and CPU per request within 10%
 * of the closed loops'.
 *
 * After each service run, the control: bare Koa made to use the same CPU time per request as the service
 * did in its closed loops (BENCH_BARE_SPIN_US), loaded on the same schedule. It is as busy as the service,
 * with none of the service's code, so what it pays is the machine's and Node's share of the result.
 * Writes docs/benchmarks-open-loop.md.
 */
const SHARE = Number(process.env.BENCH_OPEN_LOOP_SHARE ?? 0.8);
const SECONDS = Number(process.env.BENCH_OPEN_LOOP_SECONDS ?? 60);
const CLOSED_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const PLAINTEXT = { plaintextBase64: Buffer.alloc(1024, 7).toString('base64') };
const BODY = JSON.stringify(PLAINTEXT);
const work = mkdtempSync(path.join(tmpdir(), 'svc-bench-open-loop-'));

const STORAGES = [
  {
    name: 'in-memory journal, audit to stdout (a file)',
    env: () => ({ SVC_JOURNAL_KIND: 'in-memory', SVC_AUDIT_KIND: 'stdout' }),
  },
  {
    name: 'SQLite journal and audit (rdb-embedded)',
    env: () => {
      const dir = mkdtempSync(path.join(work, 'sqlite-'));
      return {
        SVC_JOURNAL_KIND: 'rdb-embedded',
        SVC_AUDIT_KIND: 'rdb-embedded',
        SVC_RDB_EMBEDDED_JDBC_URL: `jdbc:sqlite:${path.join(dir, 'journal.db')}`,
        SVC_AUDIT_EMBEDDED_PATH: path.join(dir, 'audit.db'),
      };
    },
  },
];

/** Starts a server (the service, or bare Koa with `env`), warms it up for 10 s, runs `work` on it and stops it. */
async function withServer<T>(
  bare: boolean,
  env: Record<string, string>,
  run: (server: { url: string; pid: number; urlPath: string; body: string }) => Promise<T>,
): Promise<T> {
  const svc = await start(
    [bare ? 'bench/bare-koa.ts' : 'app/main.ts'],
    { SVC_HTTP_HOST: '127.0.0.1', SVC_HTTP_PORT: '0', ...env },
    path.join(work, 'stdout.jsonl'),
  );
  try {
    const urlPath = bare
      ? '/echo'
      : `/v1/keys/${await activeKey(svc.url, { algorithm: 'AES', sizeBits: 256 })}/encrypt`;
    await load('warm-up', `${svc.url}${urlPath}`, PLAINTEXT, 10);
    return await run({ url: svc.url, pid: svc.child.pid!, urlPath, body: BODY });
  } finally {
    svc.child.kill('SIGTERM');
  }
}

const rows: Array<{ service: OpenLoopResult; control: OpenLoopResult; spinUs: number }> = [];
for (const storage of STORAGES) {
  const service = await withServer(false, storage.env(), (server) =>
    measureOpenLoop(storage.name, server, (rps) => rps * SHARE, SECONDS, CLOSED_SECONDS),
  );
  // The bare endpoint's own cost, measured now, is what the spin does not need to add.
  const bareMs = await withServer(true, {}, async ({ url, pid, urlPath }) => {
    const row = await load('bare Koa, its own cost', `${url}${urlPath}`, PLAINTEXT, CLOSED_SECONDS, pid);
    return 1000 / row.perCpuSecond;
  });
  const spinUs = Math.max(0, Math.round((service.closedCpuPerRequestMs - bareMs) * 1000));
  const control = await withServer(true, { BENCH_BARE_SPIN_US: String(spinUs) }, (server) =>
    measureOpenLoop(`control for ${storage.name}`, server, () => service.rate, SECONDS, CLOSED_SECONDS),
  );
  rows.push({ service, control, spinUs });
}

const f = (x: number, d = 1) => x.toFixed(d);
const cpuRatio = (r: OpenLoopResult) => r.cpuPerRequestMs / r.closedCpuPerRequestMs;
const grew = (r: OpenLoopResult) => r.inFlightLast > Math.max(2, r.inFlightFirst * 1.5);
const verdict = (r: OpenLoopResult) =>
  [r.p99 < 50, !grew(r), cpuRatio(r) <= 1.1, r.errors === 0].every(Boolean) ? 'met' : 'not met';
const line = (r: OpenLoopResult, goals: string) =>
  `| ${r.name} | ${f(r.closedRpsBefore, 0)} / ${f(r.closedRpsAfter, 0)} | ${f(r.rate, 0)} | ${r.answered} | ${r.errors} | ${f(r.p50)} | ${f(r.p99)} | ${f(r.max)} | ${f(r.inFlightFirst)} / ${f(r.inFlightLast)} | ${f(r.cpuPerRequestMs, 3)} / ${f(r.closedCpuPerRequestMs, 3)} (${f(cpuRatio(r), 2)}x) | ${f(r.generatorCores, 2)} | ${goals} |`;
const doc = [
  '# Benchmarks: open-loop load',
  '',
  '<!-- Written by `npm run bench:open-loop`; numbers from the run described below. -->',
  '',
  `${machine()}, ${cpus().length} cores${PINNED ? ', the server pinned to core 0 and the load generator to core 1' : ''}.`,
  `For each storage, after a 10 s warm-up, a closed-loop load (autocannon, 50 connections, ${CLOSED_SECONDS} s) measures what`,
  `encrypt 1 KiB sustains; the same server then gets requests started on a schedule at ${f(SHARE * 100, 0)}% of that rate for`,
  `${SECONDS} s, whatever the answers (open loop, as independent clients arrive), over ${CLIENT_CONNECTIONS} keep-alive connections opened`,
  'beforehand, each request timed from when it was due (the first 3 s of the schedule warm the generator and are not',
  'counted); then a second closed loop. The closed-loop CPU per request is the mean of the two, so a drift of the',
  "machine's speed during the run moves both sides. Goals: p99 under 50 ms, the requests in flight in the last 10 s",
  "no more than half again the first 10 s's, or 2 (a server that falls behind grows its queue without bound; the",
  "mean of a sample every 0.1 s moves a little by itself), CPU per request within 10% of the closed loops', no errors.",
  '',
  'Each service row is followed by its control: bare Koa made to spend the CPU time per request the service spent',
  "in its closed loops (the spin is counted in the process's own CPU time, not in wall time), on the same schedule",
  "right after it. It is as busy as the service with none of the service's code: what the control pays, the machine",
  'and Node pay.',
  '',
  '| server | closed loop req/s, before / after | open-loop rate | answered | errors | p50 ms | p99 ms | max ms | ' +
    'in flight, first / last 10 s | CPU ms a request, open / closed | generator cores | goals |',
  '|---|---|---|---|---|---|---|---|---|---|---|---|',
  ...rows.flatMap(({ service, control, spinUs }) => [
    line(service, verdict(service)),
    line({ ...control, name: `control: bare Koa + ${spinUs} µs CPU a request` }, verdict(control)),
  ]),
  '',
  "Reading it: the service's own part of the open-loop CPU is its ratio over its control's: " +
    rows.map(({ service, control }) => `${service.name} ${f(cpuRatio(service) / cpuRatio(control), 2)}x`).join(', ') +
    '. A p99 or a growing queue that the control shows as well comes from how busy the core is on this machine, not',
  "from the service's code. The two closed-loop rates show how far the machine's speed moved during a run; an open",
  'loop set at 80% of a fast spell runs at more than 80% of a slow one. A "generator cores" value near 1 means the',
  'load generator (one Node thread) lagged behind its schedule, and the latency columns then measure it as much as the server.',
  '',
];
writeFileSync(path.join(ROOT, 'docs/benchmarks-open-loop.md'), doc.join('\n'));
process.stderr.write('docs/benchmarks-open-loop.md written\n');
