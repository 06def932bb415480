import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { serverConnection } from '../plugins/sql-support/connection-url.ts';
import { createStderrLogger } from '../kernel/logger.ts';
import { systemClock } from '../kernel/ports/clock.ts';
import { KnexAuditSink } from '../plugins/audit-sink/knex/knex-audit-sink.ts';
import { serverKnexSettings } from '../plugins/sql-support/server-connection.ts';
import { sqliteKnexSettings } from '../plugins/sql-support/sqlite-connection.ts';
import { machine, median, ROOT } from './lib/harness.ts';
import { startPrivatePostgres, stopPrivatePostgres } from './lib/private-postgres.ts';

/**
 * `npm run bench:audit-verify`: writes 100,000 chained audit rows through the SQL audit sink (SQLite, and
 * PostgreSQL started by the test-services script), then times GET /v1/audit/verify's work over them,
 * three times. Writes docs/benchmarks-audit-verify.md.
 */
const ROWS = Number(process.env.BENCH_AUDIT_ROWS ?? 100_000);
const quiet = createStderrLogger('error', () => {});
const work = mkdtempSync(path.join(tmpdir(), 'svc-bench-verify-'));

async function write(sink: KnexAuditSink, from: number, to: number): Promise<void> {
  for (let i = from; i < to; i += 1000) {
    const batch = [];
    for (let j = i; j < Math.min(to, i + 1000); j++) {
      batch.push(
        sink.write({
          id: randomUUID(),
          occurredAt: new Date(Date.UTC(2026, 10, 1) + j).toISOString(),
          principal: { subject: `agent-${j % 50}`, kind: 'Agent' },
          operation: 'Encrypt',
          resource: randomUUID(),
          outcome: j % 7 ? 'Success' : 'PermissionDenied',
          context: { keyVersion: '1', 'source.ip': '10.0.0.7', riskScore: '12', decision: 'Allow' },
          correlationId: randomUUID(),
        }),
      );
    }
    await Promise.all(batch);
  }
}

interface Result {
  name: string;
  writeS: number;
  verifyS: number[];
  checked: number;
  incrementalS: number;
  incrementalChecked: number;
}

async function verified(name: string, sink: KnexAuditSink, full: boolean): Promise<{ s: number; checked: number }> {
  const t0 = performance.now();
  const report = await sink.verify({ full });
  if (!report.valid)
    throw new Error(`${name}: the untouched chain did not verify: ${JSON.stringify(report.firstBroken)}`);
  return { s: (performance.now() - t0) / 1000, checked: report.checked };
}

async function measure(name: string, sink: KnexAuditSink): Promise<Result> {
  await sink.start();
  const began = performance.now();
  await write(sink, 0, ROWS);
  const writeS = (performance.now() - began) / 1000;
  const verifyS: number[] = [];
  let checked = 0;
  for (let run = 0; run < 3; run++) {
    const full = await verified(name, sink, true);
    verifyS.push(full.s);
    checked = full.checked;
  }
  // What a verification without full=true costs after 1,000 more records: it goes on from the last verified row.
  await write(sink, ROWS, ROWS + 1000);
  const incremental = await verified(name, sink, false);
  await sink.stop();
  console.log(
    `${name}: wrote ${ROWS} rows in ${writeS.toFixed(1)} s; full verify ${verifyS.map((s) => s.toFixed(2)).join(', ')} s; incremental ${incremental.s.toFixed(3)} s over ${incremental.checked} rows`,
  );
  return { name, writeS, verifyS, checked, incrementalS: incremental.s, incrementalChecked: incremental.checked };
}

const results = [
  await measure(
    'SQLite',
    new KnexAuditSink(sqliteKnexSettings(path.join(work, 'audit.db')), 0, systemClock, quiet, 'bench-node'),
  ),
];
const vars = startPrivatePostgres(work);
try {
  const pg = serverKnexSettings(
    'postgresql',
    serverConnection(vars.SVC_TEST_PG_URL!, 'postgresql', vars.SVC_TEST_PG_USER!, vars.SVC_TEST_PG_PASSWORD!),
    { max: 10, acquireTimeoutMs: 5000, bootTimeoutMs: 20000 },
  );
  results.push(await measure('PostgreSQL', new KnexAuditSink(pg, 0, systemClock, quiet, 'bench-node')));
} finally {
  stopPrivatePostgres(work);
}

const doc = `# Benchmark: verifying the audit hash chain

\`npm run bench:audit-verify\` (bench/audit-verify.ts), ${machine()}, ${cpus().length} cores (${cpus()[0]?.model.trim()}).
${ROWS.toLocaleString('en')} audit rows of one node are written through the SQL audit sink (group commit, chained as
in service), then the chain is verified in full three times, as \`GET /v1/audit/verify?full=true\` does it: in the
sink's reader thread, rows read in pages of 5,000 by id, each hash recomputed over the canonical event. Then 1,000
more rows are written and verified without \`full\`, which goes on from the last verified row. The sink runs
without the journal's node registry here, so the registry checks (a few small reads) are not in these times.
The reader thread runs at nice 10, so on a machine busy with other work a full verify yields to it and takes
longer: these runs shared two cores with other processes, and their spread shows it.

| backend | rows checked | write (s) | full verify, each run (s) | full verify, median (s) | incremental verify after 1,000 rows (s) |
|---|---|---|---|---|---|
${results.map((r) => `| ${r.name} | ${r.checked.toLocaleString('en')} | ${r.writeS.toFixed(1)} | ${r.verifyS.map((s) => s.toFixed(2)).join(', ')} | ${median(r.verifyS).toFixed(2)} | ${r.incrementalS.toFixed(3)} (${r.incrementalChecked.toLocaleString('en')} rows) |`).join('\n')}

The goal is under 2 s for 100,000 rows (full). What verification proves, and what it does not, is in
[audit-export.md](audit-export.md#tamper-evidence).
`;
writeFileSync(path.join(ROOT, 'docs/benchmarks-audit-verify.md'), doc);
console.log(doc);
