import { mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import knexFactory from 'knex';
import { activeKey, call, CONNECTIONS, load, machine, median, ROOT, ROUNDS, SECONDS, start } from './lib/harness.ts';
import { startPrivatePostgres, stopPrivatePostgres } from './lib/private-postgres.ts';

/**
 * `npm run bench:postgres`: the full chain with journal and audit on PostgreSQL (fsync on, as in
 * production) against the in-memory configuration in the same run, for encrypt 1 KiB; then an audit
 * query by key (limit 100) over 1,000,000 audit rows. Writes docs/benchmarks-postgres.md.
 */
const work = mkdtempSync(path.join(tmpdir(), 'svc-bench-pg-'));
const vars = startPrivatePostgres(work, { PG_FSYNC: 'on' });
const pgEnv = {
  SVC_JOURNAL_KIND: 'rdb-server-1',
  SVC_AUDIT_KIND: 'rdb-server-1',
  SVC_JDBC_URL: vars.SVC_TEST_PG_URL!,
  SVC_JDBC_USERNAME: vars.SVC_TEST_PG_USER!,
  SVC_JDBC_PASSWORD: vars.SVC_TEST_PG_PASSWORD!,
  SVC_CRYPTO_LOCAL_KEK: Buffer.alloc(32, 3).toString('base64'),
};
const common = { SVC_HTTP_HOST: '127.0.0.1', SVC_HTTP_PORT: '0' };
const mem = await start(
  ['app/main.ts'],
  { ...common, SVC_JOURNAL_KIND: 'in-memory', SVC_AUDIT_KIND: 'stdout' },
  path.join(work, 'audit.jsonl'),
);
const pg = await start(['app/main.ts'], { ...common, ...pgEnv });
try {
  const plaintextBase64 = Buffer.alloc(1024, 7).toString('base64');
  const memKey = await activeKey(mem.url, { algorithm: 'AES' });
  const pgKey = await activeKey(pg.url, { algorithm: 'AES' });
  await load('warm-up in-memory', `${mem.url}/v1/keys/${memKey}/encrypt`, { plaintextBase64 }, 3);
  await load('warm-up postgres', `${pg.url}/v1/keys/${pgKey}/encrypt`, { plaintextBase64 }, 3);
  const ratios: number[] = [];
  const rows: Array<[number, number, number, number]> = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const m = await load('encrypt 1 KiB, in-memory journal + stdout audit', `${mem.url}/v1/keys/${memKey}/encrypt`, {
      plaintextBase64,
    });
    const p = await load('encrypt 1 KiB, PostgreSQL journal + audit', `${pg.url}/v1/keys/${pgKey}/encrypt`, {
      plaintextBase64,
    });
    ratios.push(p.rps / m.rps);
    rows.push([m.rps, p.rps, p.p50, p.p99]);
  }

  // 1,000,000 audit rows over 10,000 resources, then the query a client makes: one key, newest 100.
  const db = knexFactory({
    client: 'pg',
    connection: {
      host: '127.0.0.1',
      port: Number(new URL(vars.SVC_TEST_PG_URL!.replace('jdbc:postgresql', 'http')).port),
      database: 'svc',
      user: 'svc',
      password: 'x',
    },
  });
  process.stderr.write('inserting 1,000,000 audit rows...\n');
  await db.raw(`insert into svc_audit (occurred_at, actor, actor_kind, operation, resource, outcome, context, correlation_id)
    select to_char(timestamp '2026-01-01' + g * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           'actor-' || (g % 500), 'Human', (array['Sign','Encrypt','Decrypt','Verify'])[1 + g % 4],
           'key-' || (g % 10000), 'Success', '{"source.ip":"127.0.0.1"}', 'req-' || g
    from generate_series(1, 1000000) g`);
  await db.raw('analyze svc_audit');
  const total = Number((await db('svc_audit').count({ n: '*' }).first())!.n);
  await db.destroy();
  const times: number[] = [];
  for (let i = 0; i < 60; i++) {
    const key = `key-${(i * 7919) % 10000}`;
    const t0 = performance.now();
    const page = await call(`${pg.url}/v1/audit?key=${key}&limit=100`, 'GET');
    times.push(performance.now() - t0);
    if (page.records.length !== 100) throw new Error(`expected 100 rows for ${key}, got ${page.records.length}`);
  }
  const q = times.slice(10).sort((a, b) => a - b);

  const doc = [
    '# Benchmarks: PostgreSQL',
    '',
    '<!-- Written by `npm run bench:postgres`. -->',
    '',
    `Run on ${machine()}, ${cpus().length} cores. PostgreSQL 15 on the same machine with fsync on (the durable setting),`,
    `started by scripts/test-services.sh; autocannon ${CONNECTIONS} connections, ${SECONDS} s per run, ${ROUNDS} rounds alternating`,
    'the two configurations. Both run the full chain (dev auth and policy, ' +
      'validation, audit before the answer, metrics).',
    "With PostgreSQL every encrypt also re-checks the key's last journal sequence number (one index lookup) and its",
    'audit record is committed before the answer; concurrent records share one multi-row INSERT (group commit).',
    '',
    '| round | in-memory req/s | PostgreSQL req/s | PostgreSQL p50 ms | p99 ms | ratio |',
    '|---|---|---|---|---|---|',
    ...rows.map(
      ([m, p, p50, p99], i) =>
        `| ${i + 1} | ${m.toFixed(0)} | ${p.toFixed(0)} | ${p50} | ${p99} | ${(p / m).toFixed(2)} |`,
    ),
    '',
    `Median ratio PostgreSQL / in-memory: **${median(ratios).toFixed(2)}** (goal: at least 0.50).`,
    '',
    `Audit query by key, limit 100, over ${total.toLocaleString('en')} rows (10,000 resources, index on (resource, occurred_at desc)),`,
    `through GET /v1/audit, 50 sequential requests after 10 warm-up ones, measured at the client:`,
    `median **${median(q).toFixed(1)} ms**, p95 ${q[Math.floor(q.length * 0.95)]!.toFixed(1)} ms, max ${q.at(-1)!.toFixed(1)} ms (goal: under 50 ms).`,
    '',
  ].join('\n');
  writeFileSync(path.join(ROOT, 'docs/benchmarks-postgres.md'), doc);
  process.stderr.write(doc);
} finally {
  mem.child.kill('SIGTERM');
  pg.child.kill('SIGTERM');
  stopPrivatePostgres(work);
}
