import { mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { activeKey, call, CONNECTIONS, load, median, PINNED, ROOT, ROUNDS, SECONDS, start, type Row } from './lib/harness.ts';

/**
 * `npm run bench`: starts the real service (full chain: dev auth, dev policy, stdout audit redirected to
 * a file, in-memory journal) and a bare Koa endpoint, loads each with autocannon (50 connections,
 * BENCH_SECONDS each, default 10) in one run, and writes docs/benchmarks.md with ratios to the bare endpoint.
 */
const work = mkdtempSync(path.join(tmpdir(), 'svc-bench-'));

const bare = await start(['bench/bare-koa.ts'], {});
const SERVICE_ENV = { SVC_HTTP_HOST: '127.0.0.1', SVC_HTTP_PORT: '0', SVC_JOURNAL_KIND: 'in-memory', SVC_AUDIT_KIND: 'stdout' };
const svc = await start(['app/main.ts'], SERVICE_ENV, path.join(work, 'audit.jsonl'));
try {
  const key = (spec: object) => activeKey(svc.url, spec);
  const plaintextBase64 = Buffer.alloc(1024, 7).toString('base64');
  const ed = await key({ algorithm: 'EdDSA' });
  const p256 = await key({ algorithm: 'EC', curve: 'P-256' });
  const aes = await key({ algorithm: 'AES', sizeBits: 256 });
  const { ciphertextBase64 } = await call(`${svc.url}/v1/keys/${aes}/encrypt`, 'POST', { plaintextBase64 });
  const message = { messageBase64: Buffer.from('a typical message to sign, about sixty-four bytes long......').toString('base64') };

  // Warm-up: let V8 optimise both servers' hot paths before anything is measured.
  process.stderr.write('warming up...\n');
  await load('warm-up bare', `${bare.url}/echo`, { plaintextBase64 }, 3);
  await load('warm-up encrypt', `${svc.url}/v1/keys/${aes}/encrypt`, { plaintextBase64 }, 3);
  await load('warm-up sign', `${svc.url}/v1/keys/${ed}/sign`, message, 2);

  // Interleaved: every scenario sits between two baseline runs and is compared with their mean, so a
  // drift of the shared machine during the run moves numerator and denominator together.
  const scenarios: Array<[string, string, unknown]> = [
    ['encrypt AES-256-GCM 1 KiB', `${svc.url}/v1/keys/${aes}/encrypt`, { plaintextBase64 }],
    ['decrypt AES-256-GCM 1 KiB', `${svc.url}/v1/keys/${aes}/decrypt`, { ciphertextBase64 }],
    ['sign Ed25519', `${svc.url}/v1/keys/${ed}/sign`, message],
    ['sign ECDSA P-256', `${svc.url}/v1/keys/${p256}/sign`, message],
    ['create key (AES-256)', '/v1/keys', { spec: { name: 'bench-create', algorithm: 'AES' } }],
  ];
  // Creating keys grows the in-memory journal by some 100k keys a run; it runs on a fresh instance of its
  // own each round so that it cannot slow the other scenarios (or the next round) down with a larger heap.
  const FRESH = new Set(['create key (AES-256)']);
  const onFresh = async (name: string, urlPath: string, body: unknown): Promise<Row> => {
    const fresh = await start(['app/main.ts'], SERVICE_ENV, path.join(work, 'audit-create.jsonl'));
    try {
      await load(`warm-up ${name}`, `${fresh.url}${urlPath}`, body, 2);
      return await load(name, `${fresh.url}${urlPath}`, body, SECONDS, fresh.child.pid);
    } finally {
      fresh.child.kill('SIGTERM');
    }
  };
  const bares: Row[] = [];
  const ratios = new Map<string, number[]>();
  const cpuRatios = new Map<string, number[]>();
  const last = new Map<string, Row>();
  const mean = (f: (r: Row) => number) => (f(bares.at(-2)!) + f(bares.at(-1)!)) / 2;
  const loadBare = () => load('bare Koa JSON echo (1 KiB body)', `${bare.url}/echo`, { plaintextBase64 }, SECONDS, bare.child.pid);
  for (let round = 1; round <= ROUNDS; round++) {
    process.stderr.write(`round ${round} of ${ROUNDS}\n`);
    bares.push(await loadBare());
    for (const [name, url, body] of scenarios) {
      const row = FRESH.has(name) ? await onFresh(name, url, body) : await load(name, url, body, SECONDS, svc.child.pid);
      bares.push(await loadBare());
      ratios.set(name, [...(ratios.get(name) ?? []), row.rps / mean((r) => r.rps)]);
      cpuRatios.set(name, [...(cpuRatios.get(name) ?? []), row.perCpuSecond / mean((r) => r.perCpuSecond)]);
      last.set(name, row);
    }
  }
  const rows = scenarios.map(([name]) => ({ ...last.get(name)!, ratios: ratios.get(name)!, cpu: cpuRatios.get(name)! }));
  const list = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(', ');

  const table = rows.map((r) => `| ${r.name} | ${r.rps.toFixed(0)} | ${r.perCpuSecond.toFixed(0)} | ${r.p50} | ${r.p99} | ${list(r.ratios)} | **${median(r.ratios).toFixed(2)}** | ${list(r.cpu)} | **${median(r.cpu).toFixed(2)}** | ${r.errors} |`);
  const doc = [
    '# Benchmarks',
    '',
    '<!-- Written by `npm run bench`; numbers from the run described below. -->',
    '',
    `Run on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} cores (${cpus()[0]?.model.trim()}), Node ${process.version}. autocannon,`,
    `${CONNECTIONS} connections, ${SECONDS} s per scenario, load generator on the same machine as the servers.`,
    'Both servers run with the same Node flags as `npm start` (`--max-semi-space-size=64`) and get a warm-up load first.',
    PINNED ? 'Each server runs pinned to core 0 and the load generator to core 1 (taskset), one at a time.' : 'Servers and load generator share the cores (taskset was not available).',
    'The service runs the full chain: request id, dev authentication, JSON body parsing, then the operation pipeline',
    '(dev policy, risk score, schema validation, the handler, one audit record written to stdout, redirected to a file,',
    'before the answer, metrics, the span), with the six detectors and the auto-responder watching every record.',
    'Journal in-memory. The baseline is a bare Koa + @koa/router + koa-body endpoint parsing the same',
    '1 KiB JSON body and echoing it back as JSON. Each scenario runs between two baseline runs and its ratio is to',
    `the mean of those two, so drift of the shared machine affects both sides alike; the whole sequence runs ${ROUNDS}`,
    'times and the table gives every round\'s ratio and their median. req/s, p50 and p99 are from the last round.',
    '',
    `Baseline runs, in order: ${bares.map((b) => b.rps.toFixed(0)).join(', ')} req/s; ${bares.map((b) => b.perCpuSecond.toFixed(0)).join(', ')} req per CPU second.`,
    '',
    'Two ratios to the bare endpoint: per request (req/s of the service over req/s of the baseline, both under the',
    'same 50 connections) and per CPU second (requests answered per second of the server process\'s own CPU time,',
    'user + system from /proc/PID/stat, so the load generator sharing the cores does not enter it).',
    '',
    '| Scenario | req/s | req per CPU s | p50 ms | p99 ms | req/s ratio per round | median | per-CPU ratio per round | median | errors |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...table,
    '',
    'Goals: the full chain (one operation pipeline for every door) loses nothing against the previous release:',
    'encrypt 1 KiB at least 0.68 and Ed25519 sign at least 0.55 of bare Koa per CPU second; the goal for the',
    'pipeline is encrypt at least 0.75. PostgreSQL numbers are in [benchmarks-postgres.md](benchmarks-postgres.md).',
    '',
    'Run-to-run spread on this 2-core machine is about ten percent for either side (the load generator',
    'competes with the server for the same cores); compare ratios, not absolute numbers, across runs.',
    '',
    'The cloud-kms root of trust against the local one (warm cache within 10%, cold-cache latency) is in',
    '[benchmarks-cloud-kms.md](benchmarks-cloud-kms.md); what the operation pipeline costs, and 0.1.0 measured',
    'with the same harness, is in [benchmarks-pipeline.md](benchmarks-pipeline.md); the rate limiter\'s cost (on, with limits',
    'this load never reaches, against off) is in [benchmarks-rate-limit.md](benchmarks-rate-limit.md); encrypt while',
    'a Human loops audit verification and advisor scans over 100,000 audit rows is in [benchmarks-long-reads.md](benchmarks-long-reads.md);',
    'an encrypt through the MCP door against the same encrypt over REST is in [benchmarks-mcp.md](benchmarks-mcp.md).',
    'KMIP Encrypt through the KMIP door against REST encrypt, per server CPU second in the same run, is in',
    '[benchmarks-kmip.md](benchmarks-kmip.md). The pkcs11',
    'root of trust on SoftHSM2 against the local one (warm and cold cache) is in [benchmarks-pkcs11.md](benchmarks-pkcs11.md).',
    'Batch encrypt of 100 items of 1 KiB against single encrypts, in items per server CPU second, is in',
    '[benchmarks-batch.md](benchmarks-batch.md). Finding keys (`GET /v1/keys`) over 100,000 keys on PostgreSQL is in',
    '[benchmarks-locate.md](benchmarks-locate.md). Encrypt with 1, 2, ... N workers on one node is in',
    '[benchmarks-scale.md](benchmarks-scale.md); encrypt with the three secondary audit sinks on against off, and what',
    'each receiver got, is in [benchmarks-audit-sinks.md](benchmarks-audit-sinks.md).',
    '',
  ].join('\n');
  writeFileSync(path.join(ROOT, 'docs/benchmarks.md'), doc);
  process.stderr.write('docs/benchmarks.md written\n');
} finally {
  bare.child.kill('SIGTERM');
  svc.child.kill('SIGTERM');
}
