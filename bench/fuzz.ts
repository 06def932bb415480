import { mkdtempSync, readFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { writeGeneratedBlock } from './lib/generated-doc.ts';
import { parseArgs } from 'node:util';
import knexFactory from 'knex';
import { auditMismatches, type AuditMismatch } from '../test/helpers/fuzz/audit-oracle.ts';
import { FUZZ_ENV } from '../test/helpers/fuzz/cast.ts';
import { runFuzz, type FuzzResult } from '../test/helpers/fuzz/run.ts';
import { connect } from '../test/helpers/fuzz/transport.ts';
import { findingLine, percentile, serverHistogram, summarize } from './lib/fuzz-stats.ts';
import { cpuSeconds, machine, PINNED, ROOT, start } from './lib/harness.ts';

/**
 * `npm run bench:fuzz`: boots the real service (hmac tokens, role-based policy, SQLite journal and audit;
 * PostgreSQL too when SVC_TEST_PG_URL and SVC_TEST_PG_ADMIN_URL are set), sets up Humans, a Service,
 * scoped agents and keys of every algorithm, then sends --requests (default 100,000) mixed valid and
 * hostile requests from --connections keep-alive connections (default 24), drawn from a seeded PRNG
 * (test/helpers/fuzz/). Records every answer's status and latency and the server process's health.
 * Goal: p99 < 100 ms and no 5xx. Writes docs/benchmarks-fuzz.md; exits 1 on any 5xx or a crash.
 */
const { values: args } = parseArgs({
  options: {
    requests: { type: 'string', default: process.env.BENCH_FUZZ_REQUESTS ?? '100000' },
    connections: { type: 'string', default: process.env.BENCH_FUZZ_CONNECTIONS ?? '24' },
    seed: { type: 'string', default: process.env.BENCH_FUZZ_SEED ?? '20261127' },
    backends: { type: 'string', default: process.env.BENCH_FUZZ_BACKENDS ?? 'sqlite,postgres' },
    out: { type: 'string', default: process.env.BENCH_FUZZ_OUT ?? path.join(ROOT, 'docs/benchmarks-fuzz.md') },
    // After each saturated run, a second one on a fresh service at this share of the rate it measured,
    // open loop (requests start on a schedule, not when an answer came back); 0 leaves it out.
    'open-loop-share': { type: 'string', default: process.env.BENCH_FUZZ_OPEN_LOOP_SHARE ?? '0.7' },
  },
});
const OPEN_LOOP_SHARE = Number(args['open-loop-share']);
const REQUESTS = Number(args.requests);
const CONNECTIONS = Number(args.connections);
const SEED = Number(args.seed);
const KEK = Buffer.alloc(32, 5).toString('base64');
const work = mkdtempSync(path.join(tmpdir(), 'svc-bench-fuzz-'));

interface Run {
  backend: string;
  result: FuzzResult;
  rssBeforeMb: number;
  rssAfterMb: number;
  rssPeakMb: number;
  cpuSeconds: number;
  load: [number, number];
  crashed: string | undefined;
  readyAfter: number;
  verify: { status: number; valid?: boolean; checked?: number; ms: number; text: string };
  errorLogs: string[];
  /** The service's /metrics at the end (its own latency view). */
  metrics: string;
  /** The audit trail read back against every answer (audit-oracle.ts). */
  audited: { checked: number; mismatches: AuditMismatch[] } | undefined;
  /** Event loop delay (ms) the service reported at each scrape of /metrics during the run. */
  loopDelays: Array<{ p99: number; max: number }>;
}

/** Resident and peak resident memory of a process, in MiB, from /proc/PID/status. */
function memory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

async function measure(backend: string, env: Record<string, string>, ratePerSecond?: number): Promise<Run> {
  const dir = mkdtempSync(path.join(work, `${backend}-`));
  const svc = await start(['app/main.ts'], {
    ...FUZZ_ENV,
    SVC_HTTP_HOST: '127.0.0.1',
    SVC_HTTP_PORT: '0',
    SVC_NODE_ID: 'fuzz-node',
    SVC_CRYPTO_LOCAL_KEK: KEK,
    SVC_DATA_DIR: dir,
    ...env,
  });
  const pid = svc.child.pid!;
  let crashed: string | undefined;
  let stopping = false;
  svc.child.on('exit', (code, signal) => void (stopping || (crashed = `exited with ${code ?? signal}`)));
  // Error lines of the service's log (and warnings about stores), the place a 5xx's cause would be named;
  // the first 50, since the detectors' warnings alone could otherwise crowd them out.
  const errorLogs: string[] = [];
  const telling = /"level":"error"|"level":"warn".*(unavailable|unreachable|timeout|internal)/i;
  let partial = '';
  svc.child.stderr!.on('data', (d: Buffer) => {
    const lines = (partial + d.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) if (telling.test(line) && errorLogs.length < 50) errorLogs.push(line.slice(0, 1000));
  });
  const pool = connect(svc.url, CONNECTIONS);
  try {
    const before = memory(pid);
    const cpu0 = cpuSeconds(pid);
    const load0 = loadavg()[0]!;
    const t0 = performance.now();
    process.stderr.write(
      `${backend}: ${REQUESTS} requests ${ratePerSecond ? `at ${ratePerSecond.toFixed(0)} a second (open loop)` : `from ${CONNECTIONS} connections`}, seed ${SEED}, load average ${load0.toFixed(1)}\n`,
    );
    const { cast, result } = await runFuzz(svc.url, pool, {
      requests: REQUESTS,
      connections: CONNECTIONS,
      seed: SEED,
      ratePerSecond,
      onProgress: (done) =>
        process.stderr.write(`  ${done} answered after ${((performance.now() - t0) / 1000).toFixed(0)} s\n`),
    });
    const cpu = cpuSeconds(pid) - cpu0;
    const load1 = loadavg()[0]!;
    const after = crashed ? { rss: 0, peak: 0 } : memory(pid);
    const readyAfter = crashed ? 0 : (await fetch(`${svc.url}/readyz`)).status;
    const metrics = crashed ? '' : await (await fetch(`${svc.url}/metrics`)).text();
    const v0 = performance.now();
    const res = crashed
      ? undefined
      : await fetch(`${svc.url}/v1/audit/verify?full=true`, { headers: cast.auth('auditor') });
    const text = res ? await res.text() : crashed!;
    const ms = performance.now() - v0;
    const body = res?.ok ? JSON.parse(text) : {};
    const audited = crashed ? undefined : await auditMismatches(pool, cast, result);
    return {
      backend,
      result,
      rssBeforeMb: before.rss,
      rssAfterMb: after.rss,
      rssPeakMb: after.peak,
      cpuSeconds: cpu,
      load: [load0, load1],
      crashed,
      readyAfter,
      verify: { status: res?.status ?? 0, valid: body.valid, checked: body.checked, ms, text: text.slice(0, 300) },
      errorLogs,
      metrics,
      audited,
      loopDelays: cast.loopDelays.filter((d) => Number.isFinite(d.max)),
    };
  } finally {
    stopping = true;
    await pool.close();
    svc.child.kill('SIGTERM');
  }
}

/** A fresh database on the PostgreSQL test server, as the e2e tests make one. */
async function freshPostgres(): Promise<Record<string, string>> {
  const name = `svc_fuzz_${Date.now().toString(36)}`;
  const admin = knexFactory({ client: 'pg', connection: process.env.SVC_TEST_PG_ADMIN_URL! });
  try {
    await admin.raw(`create database ${name} owner ${process.env.SVC_TEST_PG_USER}`);
  } finally {
    await admin.destroy();
  }
  return {
    SVC_JOURNAL_KIND: 'rdb-server-1',
    SVC_AUDIT_KIND: 'rdb-server-1',
    SVC_JDBC_URL: process.env.SVC_TEST_PG_URL!.replace(/\/[^/]+$/, `/${name}`),
    SVC_JDBC_USERNAME: process.env.SVC_TEST_PG_USER!,
    SVC_JDBC_PASSWORD: process.env.SVC_TEST_PG_PASSWORD!,
  };
}

/** Fresh SQLite files for one run. */
function freshSqlite(): Record<string, string> {
  const files = mkdtempSync(path.join(work, 'files-'));
  return {
    SVC_JOURNAL_KIND: 'rdb-embedded',
    SVC_AUDIT_KIND: 'rdb-embedded',
    SVC_RDB_EMBEDDED_JDBC_URL: `jdbc:sqlite:${path.join(files, 'journal.db')}`,
    SVC_AUDIT_EMBEDDED_PATH: path.join(files, 'audit.db'),
  };
}

/**
 * The saturated run, then (OPEN_LOOP_SHARE > 0) the open-loop one at that share of its rate, each on a fresh service
 * and database.
 */
async function measureBoth(
  backend: string,
  env: () => Promise<Record<string, string>> | Record<string, string>,
): Promise<void> {
  const saturated = await measure(backend, await env());
  runs.push(saturated);
  if (OPEN_LOOP_SHARE > 0 && !saturated.crashed) {
    const rate = (OPEN_LOOP_SHARE * saturated.result.statuses.length) / saturated.result.wallSeconds;
    openLoop.set(saturated, await measure(backend, await env(), rate));
  }
}

const backends = String(args.backends).split(',');
const runs: Run[] = [];
const openLoop = new Map<Run, Run>();
const skipped: string[] = [];
if (backends.includes('sqlite')) await measureBoth('SQLite', freshSqlite);
if (backends.includes('postgres')) {
  if (process.env.SVC_TEST_PG_URL && process.env.SVC_TEST_PG_ADMIN_URL) await measureBoth('PostgreSQL', freshPostgres);
  else
    skipped.push(
      "PostgreSQL (SVC_TEST_PG_URL and SVC_TEST_PG_ADMIN_URL unset; `source` the test services' env to include it)",
    );
}

const f = (x: number) => x.toFixed(1);
const cpuPerRequest = (run: Run) => (run.cpuSeconds * 1000) / run.result.statuses.length;
const lines: string[] = [];
for (const run of runs) {
  const r = run.result;
  const s = summarize(r);
  const fivexx = r.serverErrors.length;
  const met = s.all.p99 < 100 && fivexx === 0 && !run.crashed;
  lines.push(`## ${run.backend}`, '');
  lines.push(
    `**Goal: p99 < 100 ms, no 5xx: ${met ? 'met' : 'not met'}** (p99 ${f(s.all.p99)} ms, ${fivexx} 5xx${run.crashed ? `, the server ${run.crashed}` : ''}).`,
    '',
  );
  lines.push(
    `${r.statuses.length.toLocaleString('en')} requests in ${f(r.wallSeconds)} s: **${(r.statuses.length / r.wallSeconds).toFixed(0)} req/s**; server CPU ${f(run.cpuSeconds)} s`,
    `(${(r.statuses.length / run.cpuSeconds).toFixed(0)} requests per CPU second). Load average (1 min) ${f(run.load[0])} at the start, ${f(run.load[1])} at the end.`,
    '',
  );
  lines.push(
    `| latency (ms) | p50 | p95 | p99 | max | answers at or over 100 ms |`,
    '|---|---|---|---|---|---|',
    `| all requests | ${f(s.all.p50)} | ${f(s.all.p95)} | ${f(s.all.p99)} | ${f(s.all.max)} | ${s.all.over100} |`,
    '',
  );
  const below = openLoop.get(run);
  if (below) {
    const o = summarize(below.result);
    const offered = below.result.statuses.length / below.result.wallSeconds;
    lines.push(
      `**Below saturation** (a second run on a fresh service and database, same seed and mix): requests started on a schedule at`,
      `${(OPEN_LOOP_SHARE * 100).toFixed(0)}% of the rate above, whatever the answers (open loop; latency measured from when each was due), ${offered.toFixed(0)} req/s answered;`,
      `${below.result.serverErrors.length} 5xx${below.crashed ? `, the server ${below.crashed}` : ''}; server CPU ${f(below.cpuSeconds)} s; load average ${f(below.load[0])} at the start, ${f(below.load[1])} at the end.`,
      `CPU per request: **${cpuPerRequest(below).toFixed(3)} ms open loop, ${cpuPerRequest(run).toFixed(3)} ms saturated** (${(cpuPerRequest(below) / cpuPerRequest(run)).toFixed(2)}x).`,
      '',
      `| latency (ms), open loop | p50 | p95 | p99 | max | answers at or over 100 ms |`,
      '|---|---|---|---|---|---|',
      `| all requests | ${f(o.all.p50)} | ${f(o.all.p95)} | ${f(o.all.p99)} | ${f(o.all.max)} | ${o.all.over100} |`,
      '',
    );
  }
  lines.push(
    `Server process: ${run.crashed ? `**${run.crashed}**` : 'alive'}; resident memory ${f(run.rssBeforeMb)} MiB after boot, ${f(run.rssAfterMb)} MiB after the run (peak ${f(run.rssPeakMb)} MiB);`,
    `/readyz answered ${run.readyAfter} after the run. \`GET /v1/audit/verify?full=true\` at the end: ${run.verify.status}, valid ${run.verify.valid}, **${run.verify.checked?.toLocaleString('en') ?? '?'} audit rows** checked in ${(run.verify.ms / 1000).toFixed(1)} s.`,
    '',
  );
  if (run.audited) {
    const m = run.audited.mismatches;
    lines.push(
      `Audit trail read back against every answer: ${run.audited.checked.toLocaleString('en')} calls reached the operation pipeline; ${m.length ? `**${m.length}**` : 'none'} of the answers lacked`,
      `exactly one audit record (under its X-Request-Id) that says what the answer said${m.length ? ':' : '.'}`,
      ...m
        .slice(0, 10)
        .map(
          (x) => `- \`${x.route}\` (${x.kind}) answered ${x.status} ${x.error}: records ${JSON.stringify(x.records)}`,
        ),
      '',
    );
  }
  lines.push(
    `Status histogram: ${s.statuses.map(([st, c]) => `${st === 0 ? 'no answer' : st}: ${c}`).join(', ')}.`,
    '',
  );
  lines.push(`Mix: ${s.kinds.map(([k, c]) => `${k} ${c}`).join(', ')}.`, '');
  lines.push(`5xx answers: ${fivexx}${fivexx ? ':' : '.'}`, ...r.serverErrors.slice(0, 20).map(findingLine), '');
  if (r.connectionFailures.length)
    lines.push(
      `Requests without an answer (connection failed): ${r.connectionFailures.length}:`,
      ...r.connectionFailures.slice(0, 10).map(findingLine),
      '',
    );
  if (r.badErrorBodies.length)
    lines.push(
      `Error answers without an {error, message} body: ${r.badErrorBodies.length}:`,
      ...r.badErrorBodies.slice(0, 10).map(findingLine),
      '',
    );
  if (fivexx && run.errorLogs.length)
    lines.push('Error and warning lines of the service log:', '', '```', ...run.errorLogs.slice(0, 10), '```', '');
  const http = serverHistogram(run.metrics, 'svc_http_request_duration_seconds');
  const ops = serverHistogram(run.metrics, 'svc_keys_op_duration_seconds');
  const audit = serverHistogram(run.metrics, 'svc_audit_write_duration_seconds');
  lines.push(
    "The service's own view (its /metrics at the end, set-up included; " +
      'histogram buckets, so the p99 is a bucket bound):',
    `HTTP requests p99 under ${f(http.pBoundMs)} ms, ${http.over100} of ${http.count} at or over 100 ms; operations (authentication to audit write) p99 under ${f(ops.pBoundMs)} ms,`,
    `${ops.over100} at or over 100 ms; primary audit writes p99 under ${f(audit.pBoundMs)} ms. Time the client waits beyond what the service measures was spent before`,
    'its first middleware ran (for a core, or behind other requests on the event loop).',
    '',
  );
  const maxes = run.loopDelays.map((d) => d.max).sort((a, b) => a - b);
  if (maxes.length) {
    lines.push(
      `Event loop delay, from the ${maxes.length} scrapes of /metrics in the mix (each covers the time since the one before): the longest stall in a`,
      `window was at most ${f(percentile(maxes, 50))} ms in half of the windows, ${f(percentile(maxes, 90))} ms in nine in ten, ${f(maxes.at(-1)!)} ms at worst; ${maxes.filter((m) => m >= 100).length} windows held a stall of 100 ms or more.`,
      '',
    );
  }
  lines.push(
    `Latency over the run, per slice of ${s.size.toLocaleString('en')} requests in the order answered (the audit trail grows all along):`,
    '',
    '| slice | p50 | p99 | max |',
    '|---|---|---|---|',
    ...s.overTime.map((l, i) => `| ${i + 1} | ${f(l.p50)} | ${f(l.p99)} | ${f(l.max)} |`),
    '',
  );
  lines.push(
    'Where the time goes: routes by answers at or over 100 ms, then by count.',
    '',
    '| route | requests | p50 | p99 | max | at or over 100 ms |',
    '|---|---|---|---|---|---|',
    ...s.routes.map((x) => `| \`${x.route}\` | ${x.count} | ${f(x.p50)} | ${f(x.p99)} | ${f(x.max)} | ${x.over100} |`),
    '',
  );
}
const intro = [
  '# Benchmark: 100,000 mixed requests',
  '',
  'The service runs as in production: hmac bearer tokens, the role-based policy (admins, signers, auditors, agent',
  'admins, and a Service bound to its own keys), risk scoring, the six ' +
    'detectors and the auto-responder on, journal and',
  'audit on SQLite (and PostgreSQL). The rate limiter is on with limits ' +
    'the run does not reach. Before the run it sets up',
  'Humans, a Service, scoped agents and keys of every algorithm and size (AES, HMAC, EC, EdDSA, RSA), some of them',
  'exportable. Three requests in four are valid calls of every route: create, get, public key, activate, encrypt,',
  'decrypt, wrap, unwrap, sign, verify, data keys, re-encryption (under the same key or another), batches of encrypt,',
  'decrypt, sign and verify (1 to 100 items, about one in ten broken), ' +
    'export of exportable keys, rotate, trim of rotated',
  'keys, revoke, compromise, destroy, destruction scheduled with `waitingDays` by a Human or by an agent and often',
  'cancelled by a Human, import parameters (at most three a run: each makes an RSA-3072 key); `GET /v1/keys` (Locate)',
  'with filters and globs, following `nextCursor`; agent issue, list and revoke, token revoke; `GET /v1/audit` with',
  'filters and paging (offset and cursor); `GET /v1/audit/verify` (incremental, a recent window, or in full); advisor',
  'scan and explain; /readyz, /healthz, /metrics and the docs. The others ' +
    'are hostile: wrong types, unknown and prototype',
  'field names, control characters and NULs, bad base64, values up to 900 KB or 300,000 levels deep, malformed JSON,',
  'wrong content types, bodies over the limit, long targets and big headers, bad ids and prototype names in paths and',
  'queries, missing, expired, forged, unsigned, tampered and unregistered credentials, agents outside their scopes,',
  'Humans outside their roles, keys of the wrong type, retired keys, bad query values and forged cursors (of the audit',
  "and of Locate), Locate's bad limits, dates, filters and globs, batches of 0 or 1,001 items or of items of the wrong",
  "shape, bad data-key sizes, re-encryption to a key of the wrong type or not the caller's, export of keys not",
  'exportable or by agents, bad `waitingDays`, cancels by agents and ' +
    'Services, bad trims, imports with made-up or spent',
  'tokens and material that is no wrapping, unknown routes. The mix ' +
    'reacts to the answers as clients would: created keys',
  'are activated, a key the auto-responder revoked and an agent whose ' +
    'token it revoked are replaced, a page with more is',
  'followed. The generator is in `test/helpers/fuzz/`; `test/e2e/fuzz-mixed-requests.test.ts` runs 3,000 of the same',
  'requests (1,500 on PostgreSQL) in `npm test` and asserts no 5xx, every error answer {error, message}, one audit',
  'record per call saying what its answer said (read back by X-Request-Id; a batch is one call), still ready, audit',
  'chain valid.',
  '',
  '<!-- generated:start -->',
  '<!-- generated:end -->',
  '',
].join('\n');
const generated = [
  '<!-- generated:start (by `npm run bench:fuzz`; the text outside these markers is kept) -->',
  `Last run: ${machine()}, ${cpus().length} cores (${cpus()[0]?.model.trim()}). ${REQUESTS.toLocaleString('en')} requests per backend from ${CONNECTIONS}`,
  `keep-alive connections (undici) at once, each sending its next request when the last one answered; seed ${SEED}.`,
  PINNED
    ? 'The service runs pinned to core 0 (taskset), the load generator on core 1.'
    : 'Service and load generator share the cores (taskset was not available).',
  '',
  'The machine is shared: 2 cores, and other jobs (test runs of other people) may run on it, so absolute numbers',
  'drift by 15-35% between runs; the load average at the start and the end of each run is given. Latency is measured',
  'by the client from the first byte sent to the last byte read, so it includes waiting for a core.',
  '',
  ...(skipped.length ? [`Not run: ${skipped.join('; ')}.`, ''] : []),
  ...lines,
  '<!-- generated:end -->',
].join('\n');
writeGeneratedBlock(String(args.out), generated, intro);
const failed = [...runs, ...openLoop.values()].some((r) => r.result.serverErrors.length > 0 || r.crashed);
process.exit(failed ? 1 : 0);
