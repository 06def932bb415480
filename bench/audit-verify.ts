import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { serverConnection } from '../config/urls.ts';
import { createStderrLogger } from '../kernel/logger.ts';
import { systemClock } from '../kernel/ports/clock.ts';
import { KnexAuditSink } from '../plugins/audit-sink/knex/knex-audit-sink.ts';
import { serverKnexSettings } from '../plugins/sql-support/server-connection.ts';
import { sqliteKnexSettings } from '../plugins/sql-support/sqlite-connection.ts';
import { machine, median, ROOT } from './lib/harness.ts';

/**
 * `npm run bench:audit-verify`: writes 100,000 chained audit rows through the SQL audit sink (SQLite, and
 * PostgreSQL started by the test-services script), then times GET /v1/audit/verify's work over them,
 * three times. Writes docs/benchmarks-audit-verify.md.
 */
const ROWS = Number(process.env.BENCH_AUDIT_ROWS ?? 100_000);
const quiet = createStderrLogger('error', () => {});
const work = mkdtempSync(path.join(tmpdir(), 'svc-bench-verify-'));

async function measure(name: string, sink: KnexAuditSink): Promise<{ name: string; writeS: number; verifyS: number[]; checked: number }> {
  await sink.start();
  const began = performance.now();
  for (let i = 0; i < ROWS; i += 1000) {
    const batch = [];
    for (let j = i; j < Math.min(ROWS, i + 1000); j++) {
      batch.push(sink.write({
        id: randomUUID(), occurredAt: new Date(Date.UTC(2026, 10, 1) + j).toISOString(), principal: { subject: `agent-${j % 50}`, kind: 'Agent' },
        operation: 'Encrypt', resource: randomUUID(), outcome: j % 7 ? 'Success' : 'PermissionDenied', context: { keyVersion: '1', 'source.ip': '10.0.0.7', riskScore: '12', decision: 'Allow' }, correlationId: randomUUID(),
      }));
    }
    await Promise.all(batch);
  }
  const writeS = (performance.now() - began) / 1000;
  const verifyS: number[] = [];
  let checked = 0;
  for (let run = 0; run < 3; run++) {
    const t0 = performance.now();
    const report = await sink.verify({});
    verifyS.push((performance.now() - t0) / 1000);
    if (!report.valid) throw new Error(`${name}: the untouched chain did not verify: ${JSON.stringify(report.firstBroken)}`);
    checked = report.checked;
  }
  await sink.stop();
  console.log(`${name}: wrote ${ROWS} rows in ${writeS.toFixed(1)} s; verify ${verifyS.map((s) => s.toFixed(2)).join(', ')} s`);
  return { name, writeS, verifyS, checked };
}

const results = [await measure('SQLite', new KnexAuditSink(sqliteKnexSettings(path.join(work, 'audit.db')), 0, systemClock, quiet, 'bench-node'))];
execFileSync('bash', [path.join(ROOT, 'scripts/test-services.sh'), 'start-pg', work], { stdio: ['ignore', 'ignore', 'inherit'] });
try {
  const vars = Object.fromEntries([...readFileSync(path.join(work, 'env'), 'utf8').matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]));
  const pg = serverKnexSettings('postgresql', serverConnection(vars.SVC_TEST_PG_URL!, 'postgresql', vars.SVC_TEST_PG_USER!, vars.SVC_TEST_PG_PASSWORD!), { max: 10, acquireTimeoutMs: 5000, bootTimeoutMs: 20000 });
  results.push(await measure('PostgreSQL', new KnexAuditSink(pg, 0, systemClock, quiet, 'bench-node')));
} finally {
  execFileSync('bash', [path.join(ROOT, 'scripts/test-services.sh'), 'stop', work], { stdio: 'ignore' });
}

const doc = `# Benchmark: verifying the audit hash chain

\`npm run bench:audit-verify\` (bench/audit-verify.ts), ${machine()}, ${cpus().length} cores (${cpus()[0]?.model.trim()}).
${ROWS.toLocaleString('en')} audit rows of one node are written through the SQL audit sink (group commit, chained as
in service), then the chain is verified three times, as \`GET /v1/audit/verify\` does it: rows read in pages of
5,000 by id, each hash recomputed over the canonical event.

| backend | rows checked | write (s) | verify, each run (s) | verify, median (s) |
|---|---|---|---|---|
${results.map((r) => `| ${r.name} | ${r.checked.toLocaleString('en')} | ${r.writeS.toFixed(1)} | ${r.verifyS.map((s) => s.toFixed(2)).join(', ')} | ${median(r.verifyS).toFixed(2)} |`).join('\n')}

The goal is under 2 s for 100,000 rows. What verification proves, and what it does not, is in
[audit-integrity.md](audit-integrity.md).
`;
writeFileSync(path.join(ROOT, 'docs/benchmarks-audit-verify.md'), doc);
console.log(doc);
