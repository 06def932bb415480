import path from 'node:path';
import t, { type Test } from 'tap';
import { serverConnection } from '../../plugins/sql-support/connection-url.ts';
import { createStderrLogger } from '../../kernel/logger.ts';
import { systemClock } from '../../kernel/ports/clock.ts';
import { KnexAuditSink } from '../../plugins/audit-sink/knex/knex-audit-sink.ts';
import { serverKnexSettings } from '../../plugins/sql-support/server-connection.ts';
import { sqliteKnexSettings } from '../../plugins/sql-support/sqlite-connection.ts';
import { seedAudit } from '../helpers/audit-seed.ts';
import { freshDatabase } from '../helpers/databases.ts';
import { startTestService, tempDir, type TestService } from '../helpers/service.ts';

/**
 * A Human's long reads (a full verify and an advisor scan over 100,000 audit rows) must not stall the
 * other callers. Said as an order of events, not in milliseconds: while the verify and the scan are in
 * flight, other callers' encrypt calls keep completing, many of them, before the verify answers. When
 * the reads ran on the event loop (the synchronous SQLite driver, hashing every row), at most a few dozen did.
 */
// Seeding 100,000 rows twice takes most of this file's time, and more than tap's default on a busy machine.
t.setTimeout(300_000);
const ROWS = 100_000;
const NODE = 'kms-long';
/**
 * Encrypt calls that must complete while the verify is in flight: 0 (SQLite) and 45 (PostgreSQL) did when it ran on the
 * event loop, some 300 do now.
 */
const WHILE_VERIFYING = 100;

async function seededService(t: Test, kind: 'sqlite' | 'postgresql'): Promise<TestService | undefined> {
  const dir = tempDir('svc-long-reads-');
  const db = kind === 'sqlite' ? undefined : await freshDatabase(t, kind);
  if (kind !== 'sqlite' && !db) return undefined;
  const settings = db
    ? serverKnexSettings('postgresql', serverConnection(db.url, 'postgresql', db.user, db.password), {
        max: 4,
        acquireTimeoutMs: 5000,
        bootTimeoutMs: 20000,
      })
    : sqliteKnexSettings(path.join(dir, 'audit.db'));
  // Chained under the node id the service then runs as, exactly as the service would have written them.
  const seeder = new KnexAuditSink(
    settings,
    0,
    systemClock,
    createStderrLogger('error', () => {}),
    NODE,
  );
  await seeder.start();
  await seedAudit(seeder, ROWS, new Date());
  await seeder.stop();
  const service = await startTestService(
    { SVC_NODE_ID: NODE, SVC_RATE_LIMIT_ENABLED: 'false', ...(db?.env ?? {}) },
    { dir },
  );
  t.teardown(() => service.stop());
  return service;
}

for (const kind of ['sqlite', 'postgresql'] as const) {
  t.test(
    `${kind}: encrypt calls keep completing while a full verify and an advisor scan read ${ROWS.toLocaleString('en')} audit rows; scans run one at a time`,
    async (t) => {
      const service = await seededService(t, kind);
      if (!service) return;
      const api = service.client('alice');
      const key = await api.key({ algorithm: 'AES' });
      // The audit reader is started by its first request: start it now, so only the reads themselves are timed by the
      // order below.
      t.equal((await api.get('/v1/audit?limit=1')).status, 200);

      let verified = false;
      const verify = service
        .client('auditor')
        .get('/v1/audit/verify?full=true')
        .finally(() => (verified = true));
      const scan = service.client('auditor').get('/v1/advisor/scan');
      let whileVerifying = 0;
      let failed = 0;
      await Promise.all(
        Array.from({ length: 4 }, async () => {
          while (!verified) {
            const res = await api.post(`/v1/keys/${key}/encrypt`, { plaintextBase64: 'aGVsbG8=' });
            if (res.status !== 200) failed++;
            else if (!verified) whileVerifying++;
          }
        }),
      );
      t.equal(failed, 0, 'no encrypt call failed');
      t.ok(
        whileVerifying >= WHILE_VERIFYING,
        `${whileVerifying} encrypt calls completed while the verify was in flight (at least ${WHILE_VERIFYING})`,
      );
      const report = await verify;
      t.equal(report.status, 200);
      t.match(report.body, { valid: true, nodes: [NODE] });
      t.ok(report.body.checked >= ROWS, `the verify checked every row (${report.body.checked})`);
      const scanned = await scan;
      t.equal(scanned.status, 200);
      t.match(scanned.body, { scannedRecords: 50_000, truncated: true });

      // One scan at a time per node: a second one while the first reads its 50,000 rows is refused.
      const auditor = service.client('auditor');
      const both = await Promise.all([auditor.get('/v1/advisor/scan'), auditor.get('/v1/advisor/scan')]);
      t.same(both.map((r) => r.status).sort(), [200, 429], 'of two scans at once, one ran and the other was refused');
      const refused = both.find((r) => r.status === 429)!;
      t.match(refused.body, { error: 'TooManyRequests', message: /advisor scan is already running on this node/ });
      t.ok(Number(refused.headers.get('retry-after')) >= 1, `Retry-After ${refused.headers.get('retry-after')}`);
      t.equal((await auditor.get('/v1/advisor/scan')).status, 200, 'the next scan after it runs');
      const audited = (await auditor.get('/v1/audit?op=Query&actor=auditor&limit=10')).body.records;
      t.equal(
        audited.filter((r: { outcome: string }) => r.outcome === 'TooManyRequests').length,
        1,
        'the refusal is audited',
      );
    },
  );
}
