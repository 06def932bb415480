import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import {
  activeKey,
  call,
  CONNECTIONS,
  load,
  median,
  PINNED,
  ROOT,
  ROUNDS,
  SECONDS,
  start,
  type Row,
} from './lib/harness.ts';

/**
 * `npm run bench`: starts the real service (full chain: dev auth, dev policy, stdout audit redirected to
 * a file, in-memory journal) and a bare Koa endpoint on one core, loads both at the same time with
 * autocannon (50 connections each, BENCH_SECONDS, default 10) for the ratios, then the service alone for
 * its latency, and writes docs/benchmarks.md.
 */
const work = mkdtempSync(path.join(tmpdir(), 'svc-bench-'));

const bare = await start(['bench/bare-koa.ts'], {});
const SERVICE_ENV = {
  SVC_HTTP_HOST: '127.0.0.1',
  SVC_HTTP_PORT: '0',
  SVC_JOURNAL_KIND: 'in-memory',
  SVC_AUDIT_KIND: 'stdout',
};
const svc = await start(['app/main.ts'], SERVICE_ENV, path.join(work, 'audit.jsonl'));
try {
  const key = (spec: object) => activeKey(svc.url, spec);
  const plaintextBase64 = Buffer.alloc(1024, 7).toString('base64');
  const ed = await key({ algorithm: 'EdDSA' });
  const p256 = await key({ algorithm: 'EC', curve: 'P-256' });
  const aes = await key({ algorithm: 'AES', sizeBits: 256 });
  const { ciphertextBase64 } = await call(`${svc.url}/v1/keys/${aes}/encrypt`, 'POST', { plaintextBase64 });
  const message = {
    messageBase64: Buffer.from('a typical message to sign, about sixty-four bytes long......').toString('base64'),
  };

  // Warm-up: let V8 optimise both servers' hot paths before anything is measured.
  process.stderr.write('warming up...\n');
  await load('warm-up bare', `${bare.url}/echo`, { plaintextBase64 }, 3);
  await load('warm-up encrypt', `${svc.url}/v1/keys/${aes}/encrypt`, { plaintextBase64 }, 3);
  await load('warm-up sign', `${svc.url}/v1/keys/${ed}/sign`, message, 2);

  const scenarios: Array<[string, string, unknown]> = [
    ['encrypt AES-256-GCM 1 KiB', `/v1/keys/${aes}/encrypt`, { plaintextBase64 }],
    ['decrypt AES-256-GCM 1 KiB', `/v1/keys/${aes}/decrypt`, { ciphertextBase64 }],
    ['sign Ed25519', `/v1/keys/${ed}/sign`, message],
    ['sign ECDSA P-256', `/v1/keys/${p256}/sign`, message],
    // Without a name: each key is named by its id (names are unique, and every request has the same body).
    ['create key (AES-256)', '/v1/keys', { spec: { algorithm: 'AES' } }],
  ];
  // Creating keys grows the in-memory journal by some 100k keys a run; it runs on a fresh instance of its
  // own each time so that it cannot slow the other scenarios (or the next round) down with a larger heap.
  const FRESH = new Set(['create key (AES-256)']);
  const withService = async <T>(
    name: string,
    urlPath: string,
    body: unknown,
    measure: (url: string, pid: number) => Promise<T>,
  ): Promise<T> => {
    if (!FRESH.has(name)) return measure(`${svc.url}${urlPath}`, svc.child.pid!);
    const fresh = await start(['app/main.ts'], SERVICE_ENV, path.join(work, 'audit-create.jsonl'));
    try {
      await load(`warm-up ${name}`, `${fresh.url}${urlPath}`, body, 2);
      return await measure(`${fresh.url}${urlPath}`, fresh.child.pid!);
    } finally {
      fresh.child.kill('SIGTERM');
    }
  };
  const loadBare = (seconds = SECONDS) =>
    load('bare Koa JSON echo (1 KiB body)', `${bare.url}/echo`, { plaintextBase64 }, seconds, bare.child.pid);

  // Side by side: the scenario and the bare endpoint loaded at the same time, both servers on the one core,
  // so a drift of the machine (15-35% from one second to the next here) moves both sides of a ratio alike.
  const bares: Row[] = [];
  const ratios = new Map<string, number[]>();
  const cpuRatios = new Map<string, number[]>();
  for (let round = 1; round <= ROUNDS; round++) {
    process.stderr.write(`round ${round} of ${ROUNDS}, side by side\n`);
    for (const [name, urlPath, body] of scenarios) {
      const [row, base] = await withService(name, urlPath, body, (url, pid) =>
        Promise.all([load(name, url, body, SECONDS, pid), loadBare()]),
      );
      bares.push(base);
      ratios.set(name, [...(ratios.get(name) ?? []), row.rps / base.rps]);
      cpuRatios.set(name, [...(cpuRatios.get(name) ?? []), row.perCpuSecond / base.perCpuSecond]);
    }
  }
  // Alone: the service with the core to itself, for its throughput and latency.
  const last = new Map<string, Row>();
  for (const [name, urlPath, body] of scenarios)
    last.set(
      name,
      await withService(name, urlPath, body, (url, pid) => load(`${name}, alone`, url, body, SECONDS, pid)),
    );
  const bareAlone = await loadBare();
  const rows = scenarios.map(([name]) => ({
    ...last.get(name)!,
    name,
    ratios: ratios.get(name)!,
    cpu: cpuRatios.get(name)!,
  }));
  const list = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(', ');

  const table = rows.map(
    (r) =>
      `| ${r.name} | ${r.rps.toFixed(0)} | ${r.perCpuSecond.toFixed(0)} | ${r.p50} | ${r.p99} | ${(r.perCpuSecond / bareAlone.perCpuSecond).toFixed(2)} | ${list(r.ratios)} | **${median(r.ratios).toFixed(2)}** | ${list(r.cpu)} | **${median(r.cpu).toFixed(2)}** | ${r.errors} |`,
  );
  const doc = [
    '# Benchmarks',
    '',
    '<!-- Written by `npm run bench`; numbers from the run described below. -->',
    '',
    `Run on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} cores (${cpus()[0]?.model.trim()}), Node ${process.version}. autocannon,`,
    `${CONNECTIONS} connections per server, ${SECONDS} s per load, load generator on the same machine as the servers.`,
    'Both servers run with the same Node flags as `npm start` ' +
      '(`--max-semi-space-size=64`) and get a warm-up load first.',
    PINNED
      ? 'Both servers run pinned to core 0 and the load generator to core 1 (taskset).'
      : 'Servers and load generator share the cores (taskset was not available).',
    'The service runs the full chain: request id, dev authentication, JSON body parsing, then the operation pipeline',
    '(dev policy, risk score, schema validation, the handler, one audit ' +
      'record written to stdout, redirected to a file,',
    'before the answer, metrics, the span), with the six detectors and the auto-responder watching every record.',
    'Journal in-memory. The baseline is a bare Koa + @koa/router + koa-body endpoint parsing the same',
    '1 KiB JSON body and echoing it back as JSON.',
    '',
    'The ratios come from side-by-side loads: each scenario and the bare endpoint are loaded at the same time, both',
    'servers sharing core 0, so a drift of the machine (15-35% from one second to the next on this VM) moves both',
    'sides of a ratio alike; loading one after the other, as this bench did before, let the drift between two runs',
    `into the ratio. The whole sequence runs ${ROUNDS} times and the table gives every round's ratio and their median.`,
    'req/s, p50 and p99 are from a last pass with the service alone on its core (one worker with a core of its own),',
    `where the bare endpoint answered ${bareAlone.rps.toFixed(0)} req/s (p99 ${bareAlone.p99} ms).`,
    '',
    `Bare endpoint side by side, in order: ${bares.map((b) => b.rps.toFixed(0)).join(', ')} req/s; ${bares.map((b) => b.perCpuSecond.toFixed(0)).join(', ')} req per CPU second.`,
    '',
    'Two ratios to the bare endpoint: per request (req/s of the service over req/s of the baseline, both under',
    "50 connections at the same time) and per CPU second (requests answered per second of the server process's own",
    'CPU time, user + system from /proc/PID/stat), the one the goals use: it does not depend on how the scheduler',
    'shared the core between the two. "per-CPU ratio alone" divides the service alone by the bare endpoint alone (the',
    'two loads one after the other, the old method): side by side, the ' +
      'service answers fewer and the bare endpoint more',
    'requests per CPU second than each does alone, so the side-by-side ratio is the lower of the two.',
    '',
    '| Scenario | req/s alone | req per CPU s alone | p50 ms alone | p99 ms ' +
      'alone | per-CPU ratio alone | req/s ratio per round | median | per-CPU ' +
      'ratio per round | median | errors |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...table,
    '',
    'Goals: encrypt 1 KiB at least 0.55 and Ed25519 sign at least 0.41 of bare Koa per CPU second, side by side, and',
    'p99 under 10 ms at 50 connections alone. PostgreSQL numbers are in ' +
      '[benchmarks-postgres.md](benchmarks-postgres.md).',
    '',
    'The cloud-kms root of trust against the local one (warm cache within 10%, cold-cache latency) is in',
    '[benchmarks-cloud-kms.md](benchmarks-cloud-kms.md); what the operation pipeline costs, and 0.1.0 measured',
    'with the same harness, is in ' +
      "[benchmarks-pipeline.md](benchmarks-pipeline.md); the rate limiter's " +
      'cost (on, with limits',
    'this load never reaches, against off) is in [benchmarks-rate-limit.md](benchmarks-rate-limit.md); encrypt while',
    'a Human loops audit verification and advisor scans over 100,000 audit ' +
      'rows is in [benchmarks-long-reads.md](benchmarks-long-reads.md);',
    'an encrypt through the MCP door against the same encrypt over REST is in [benchmarks-mcp.md](benchmarks-mcp.md).',
    'KMIP Encrypt through the KMIP door against REST encrypt, per server CPU second in the same run, is in',
    '[benchmarks-kmip.md](benchmarks-kmip.md). The pkcs11',
    'root of trust on SoftHSM2 against the local one (warm and cold cache) ' +
      'is in [benchmarks-pkcs11.md](benchmarks-pkcs11.md).',
    'Batch encrypt of 100 items of 1 KiB against single encrypts, in items per server CPU second, is in',
    '[benchmarks-batch.md](benchmarks-batch.md). Finding keys (`GET /v1/keys`) over 100,000 keys on PostgreSQL is in',
    '[benchmarks-locate.md](benchmarks-locate.md). Encrypt with 1, 2, ... N workers on one node is in',
    '[benchmarks-scale.md](benchmarks-scale.md); encrypt with the three secondary audit sinks on against off, and what',
    "each receiver got, is in [benchmarks-audit-sinks.md](benchmarks-audit-sinks.md); each sink's CPU per event is in",
    '[benchmarks-sink-cost.md](benchmarks-sink-cost.md). Encrypt under ' +
      'open-loop traffic (requests on a schedule at 80% of',
    'the closed-loop rate, with bare Koa under the same loads as the ' +
      'control) is in [benchmarks-open-loop.md](benchmarks-open-loop.md);',
    'this tree against the last release (`npm run bench:compare`) is below ' +
      'and in [benchmarks-compare.md](benchmarks-compare.md).',
    '',
  ].join('\n');
  // The comparison with the last release (bench:compare) is kept as it was written.
  const previous = existsSync(path.join(ROOT, 'docs/benchmarks.md'))
    ? readFileSync(path.join(ROOT, 'docs/benchmarks.md'), 'utf8')
    : '';
  const compared = /<!-- compare:start -->[\s\S]*<!-- compare:end -->/.exec(previous)?.[0];
  writeFileSync(
    path.join(ROOT, 'docs/benchmarks.md'),
    compared ? `${doc.trimEnd()}\n\n## Against the last release\n\n${compared}\n` : doc,
  );
  process.stderr.write('docs/benchmarks.md written\n');
} finally {
  bare.child.kill('SIGTERM');
  svc.child.kill('SIGTERM');
}
