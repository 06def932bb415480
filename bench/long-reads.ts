import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { titledDoc, writeGeneratedBlock } from './lib/generated-doc.ts';
import { serverConnection } from '../plugins/sql-support/connection-url.ts';
import { createStderrLogger } from '../kernel/logger.ts';
import { systemClock } from '../kernel/ports/clock.ts';
import { KnexAuditSink } from '../plugins/audit-sink/knex/knex-audit-sink.ts';
import { serverKnexSettings } from '../plugins/sql-support/server-connection.ts';
import { sqliteKnexSettings } from '../plugins/sql-support/sqlite-connection.ts';
import { seedAudit } from '../test/helpers/audit-seed.ts';
import {
  activeKey,
  CONNECTIONS,
  load,
  machine,
  median,
  PINNED,
  ROOT,
  ROUNDS,
  SECONDS,
  start,
  type Row,
} from './lib/harness.ts';
import { readerLoop, type LoopStats } from './lib/reader-loop.ts';
import { startPrivatePostgres, stopPrivatePostgres } from './lib/private-postgres.ts';

/**
 * `npm run bench:long-reads`: does a long read stall everyone else? Over ROWS (default 100,000) audit
 * rows, chained under the node's own id, encrypt 1 KiB is loaded alone and then while one Human loops
 * `GET /v1/audit/verify?full=true` and another loops `GET /v1/advisor/scan`, in ABBA order, on SQLite
 * (rdb-embedded journal and audit) and on PostgreSQL. Goal: encrypt keeps at least half its rate alone,
 * with p99 under 200 ms. Writes the generated part of docs/benchmarks-long-reads.md.
 */
const ROWS = Number(process.env.BENCH_AUDIT_ROWS ?? 100_000);
const NODE = 'bench-node';
const VERIFY = process.env.BENCH_VERIFY_PATH ?? '/v1/audit/verify?full=true';
const SCAN = '/v1/advisor/scan';
const KEK = Buffer.alloc(32, 3).toString('base64');
const PLAINTEXT = { plaintextBase64: Buffer.alloc(1024, 7).toString('base64') };
const quiet = createStderrLogger('error', () => {});
const work = mkdtempSync(path.join(tmpdir(), 'svc-bench-long-reads-'));

interface Phase {
  row: Row;
  verify?: LoopStats;
  scan?: LoopStats;
}
interface Result {
  backend: string;
  seedS: number;
  verifyAloneMs: number;
  scanAloneMs: number;
  rounds: Array<{ alone: Phase[]; loaded: Phase[] }>;
}

async function timed(url: string): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(url, { headers: { 'X-Svc-User': 'bench-auditor' } });
  const body = await res.text();
  if (!res.ok) throw new Error(`GET ${url}: ${res.status} ${body.slice(0, 300)}`);
  return performance.now() - t0;
}

async function measure(backend: string, sink: KnexAuditSink, env: Record<string, string>): Promise<Result> {
  process.stderr.write(`${backend}: seeding ${ROWS} chained audit rows...\n`);
  const t0 = performance.now();
  await sink.start();
  await seedAudit(sink, ROWS, new Date());
  await sink.stop();
  const seedS = (performance.now() - t0) / 1000;
  const svc = await start(['app/main.ts'], {
    SVC_HTTP_HOST: '127.0.0.1',
    SVC_HTTP_PORT: '0',
    SVC_NODE_ID: NODE,
    SVC_CRYPTO_LOCAL_KEK: KEK,
    SVC_DATA_DIR: work,
    ...env,
  });
  try {
    const aes = await activeKey(svc.url, { algorithm: 'AES' });
    const encrypt = `${svc.url}/v1/keys/${aes}/encrypt`;
    const verifyAloneMs = await timed(`${svc.url}${VERIFY}`);
    const scanAloneMs = await timed(`${svc.url}${SCAN}`);
    process.stderr.write(
      `${backend}: verify alone ${verifyAloneMs.toFixed(0)} ms, scan alone ${scanAloneMs.toFixed(0)} ms\n`,
    );
    await load(`warm-up ${backend}`, encrypt, PLAINTEXT, 3);
    const alone = async (): Promise<Phase> => ({
      row: await load(`encrypt alone, ${backend}`, encrypt, PLAINTEXT, SECONDS, svc.child.pid),
    });
    const loaded = async (): Promise<Phase> => {
      const verify = readerLoop(`${svc.url}${VERIFY}`, 'bench-verifier');
      const scan = readerLoop(`${svc.url}${SCAN}`, 'bench-scanner');
      const row = await load(`encrypt during verify+scan, ${backend}`, encrypt, PLAINTEXT, SECONDS, svc.child.pid);
      const phase = { row, verify: await verify.stop(), scan: await scan.stop() };
      process.stderr.write(
        `  verify: ${phase.verify.completed.length} done, ${phase.verify.refused} refused, ${phase.verify.failed} failed; scan: ${phase.scan.completed.length} done, ${phase.scan.refused} refused, ${phase.scan.failed} failed ${phase.verify.firstFailure ?? phase.scan.firstFailure ?? ''}\n`,
      );
      return phase;
    };
    const rounds: Result['rounds'] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      process.stderr.write(`${backend}: round ${round} of ${ROUNDS}\n`);
      const a1 = await alone();
      const b1 = await loaded();
      const b2 = await loaded();
      const a2 = await alone();
      rounds.push({ alone: [a1, a2], loaded: [b1, b2] });
    }
    return { backend, seedS, verifyAloneMs, scanAloneMs, rounds };
  } finally {
    svc.child.kill('SIGTERM');
  }
}

/**
 * PostgreSQL's server and its processes go to core 1 with the load generator: a database on a host of its
 * own would not take the service's core, and on this machine its backends answering the long reads'
 * queries would otherwise land on core 0 beside the request path. New backends inherit the postmaster's.
 */
function pinPostgres(postmaster: string): void {
  const children = execFileSync('ps', ['--ppid', postmaster, '-o', 'pid='], { encoding: 'utf8' })
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  for (const pid of [postmaster, ...children]) execFileSync('taskset', ['-a', '-cp', '1', pid], { stdio: 'ignore' });
}

const sqliteDir = mkdtempSync(path.join(work, 'sqlite-'));
const results: Result[] = [];
if (process.env.BENCH_LONG_READS_BACKENDS !== 'postgres') {
  results.push(
    await measure(
      'SQLite',
      new KnexAuditSink(sqliteKnexSettings(path.join(sqliteDir, 'audit.db')), 0, systemClock, quiet, NODE),
      {
        SVC_JOURNAL_KIND: 'rdb-embedded',
        SVC_AUDIT_KIND: 'rdb-embedded',
        SVC_RDB_EMBEDDED_JDBC_URL: `jdbc:sqlite:${path.join(sqliteDir, 'journal.db')}`,
        SVC_AUDIT_EMBEDDED_PATH: path.join(sqliteDir, 'audit.db'),
      },
    ),
  );
}
if (process.env.BENCH_LONG_READS_BACKENDS !== 'sqlite') {
  const vars = startPrivatePostgres(work);
  try {
    if (PINNED) pinPostgres(readFileSync(path.join(work, 'pg.pid'), 'utf8').trim());
    const settings = serverKnexSettings(
      'postgresql',
      serverConnection(vars.SVC_TEST_PG_URL!, 'postgresql', vars.SVC_TEST_PG_USER!, vars.SVC_TEST_PG_PASSWORD!),
      { max: 10, acquireTimeoutMs: 5000, bootTimeoutMs: 20000 },
    );
    results.push(
      await measure('PostgreSQL', new KnexAuditSink(settings, 0, systemClock, quiet, NODE), {
        SVC_JOURNAL_KIND: 'rdb-server-1',
        SVC_AUDIT_KIND: 'rdb-server-1',
        SVC_JDBC_URL: vars.SVC_TEST_PG_URL!,
        SVC_JDBC_USERNAME: vars.SVC_TEST_PG_USER!,
        SVC_JDBC_PASSWORD: vars.SVC_TEST_PG_PASSWORD!,
      }),
    );
  } finally {
    stopPrivatePostgres(work);
  }
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const lines: string[] = [];
for (const r of results) {
  lines.push(
    `### ${r.backend}`,
    '',
    `Seeded ${ROWS.toLocaleString('en')} rows in ${r.seedS.toFixed(1)} s. Alone, on the idle node: one verify ${r.verifyAloneMs.toFixed(0)} ms, one scan ${r.scanAloneMs.toFixed(0)} ms.`,
    '',
  );
  lines.push(
    '| round | alone req/s | alone p99 ms | loaded req/s | loaded p99 ms | ' +
      'ratio | verifies done (median ms) | scans done (median ms) | 429s | failures |',
    '|---|---|---|---|---|---|---|---|---|---|',
  );
  const ratios: number[] = [];
  const p99s: number[] = [];
  r.rounds.forEach((round, i) => {
    const aloneRps = mean(round.alone.map((p) => p.row.rps));
    const loadedRps = mean(round.loaded.map((p) => p.row.rps));
    const loadedP99 = Math.max(...round.loaded.map((p) => p.row.p99));
    ratios.push(loadedRps / aloneRps);
    p99s.push(loadedP99);
    const verifies = round.loaded.flatMap((p) => p.verify!.completed);
    const scans = round.loaded.flatMap((p) => p.scan!.completed);
    const refused = round.loaded.reduce((n, p) => n + p.verify!.refused + p.scan!.refused, 0);
    const failed = round.loaded.reduce((n, p) => n + p.verify!.failed + p.scan!.failed + p.row.errors, 0);
    const med = (xs: number[]) => (xs.length ? median(xs).toFixed(0) : '-');
    lines.push(
      `| ${i + 1} | ${aloneRps.toFixed(0)} | ${Math.max(...round.alone.map((p) => p.row.p99))} | ${loadedRps.toFixed(0)} | ${loadedP99} | ${(loadedRps / aloneRps).toFixed(2)} | ${verifies.length} (${med(verifies)}) | ${scans.length} (${med(scans)}) | ${refused} | ${failed} |`,
    );
  });
  lines.push(
    '',
    `Median ratio **${median(ratios).toFixed(2)}**, median loaded p99 **${median(p99s)} ms** (goal: ratio at least 0.50, p99 under 200 ms).`,
    '',
  );
}
const generated = [
  '<!-- generated:start (by `npm run bench:long-reads`; the text outside these markers is kept) -->',
  `Last run: ${machine()}, ${cpus().length} cores (${cpus()[0]?.model.trim()}). autocannon ${CONNECTIONS} connections on encrypt 1 KiB,`,
  `${SECONDS} s per run, ${ROUNDS} rounds of ABBA (alone, loaded, loaded, alone); a round's ratio is its loaded mean over its alone mean, its`,
  `p99 the worse of its two runs. ${PINNED ? 'The service is pinned to core 0 (taskset), worker threads included; ' + 'the load generator, the two looping Humans and PostgreSQL run on core 1.' : 'Service and load generator share the cores (taskset was not available).'}`,
  `Verify loop: \`GET ${VERIFY}\`; scan loop: \`GET ${SCAN}\` (default 90-day window, so it reads its 50,000-row cap).`,
  '',
  ...lines,
  '<!-- generated:end -->',
].join('\n');
const out = process.env.BENCH_LONG_READS_OUT;
if (out) {
  writeFileSync(out, `${generated}\n`);
  process.stderr.write(`${generated}\n`);
} else
  writeGeneratedBlock(
    path.join(ROOT, 'docs/benchmarks-long-reads.md'),
    generated,
    titledDoc('Benchmark: long reads beside the request path'),
  );
