import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Database } from '../../plugins/sql-support/sqlite-driver.ts';
import knexFactory from 'knex';
import t, { type Test } from 'tap';
import { serverConnection } from '../../config/urls.ts';
import { privatePostgres } from '../helpers/private-postgres.ts';
import { startTestService, tempDir, type TestService } from '../helpers/service.ts';
import { serverMissing } from '../helpers/test-server.ts';

/** The journal's events and outbox, read from its SQLite file with SQLite's own client. */
function journalOf(file: string) {
  const db = new Database(file, { readonly: true });
  try {
    const events = db.prepare('select key_id, type from svc_key_events order by key_id, seq').all() as Array<{ key_id: string; type: string }>;
    const outbox = db.prepare('select record from svc_audit_outbox').all().map((r) => JSON.parse((r as { record: string }).record));
    return { events, outbox };
  } finally {
    db.close();
  }
}

const OPERATION_OF: Record<string, string> = { KeyCreated: 'Create', KeyActivated: 'Activate', Rotated: 'Rotate', Compromised: 'Compromise', Destroyed: 'Destroy' };

/** Every journal event has exactly one Success row of its operation in the audit trail. */
function assertEveryChangeAudited(t: Test, events: Array<{ key_id: string; type: string }>, rows: Array<{ operation: string; resource: string; outcome: string }>) {
  for (const e of events) {
    const matching = rows.filter((r) => r.resource === e.key_id && r.operation === OPERATION_OF[e.type] && r.outcome === 'Success');
    t.equal(matching.length, 1, `${e.type} of ${e.key_id} has exactly one audit record`);
  }
}

/** Drives every kind of state change while the audit store is failing; returns the answers. */
async function changesDuringOutage(svc: TestService, activeKey: string, preActiveKey: string) {
  const api = svc.client('ops');
  return {
    create: await api.post('/v1/keys', { spec: { name: 'during-outage', algorithm: 'AES' } }),
    rotate: await api.post(`/v1/keys/${activeKey}/rotate`, {}),
    compromise: await api.post(`/v1/keys/${preActiveKey}/compromise`, { reason: 'drill' }),
    destroy: await api.call('DELETE', `/v1/keys/${preActiveKey}`),
    encrypt: await api.post(`/v1/keys/${activeKey}/encrypt`, { plaintextBase64: 'AAAA' }),
  };
}

t.test('SQLite audit store on a full file system: no change takes effect without its record', async (t) => {
  const dir = tempDir();
  const auditFs = path.join(dir, 'audit-fs');
  mkdirSync(auditFs);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', auditFs], { stdio: 'pipe' });
  } catch (err) {
    // Mounting needs root (CI runs as root); anywhere else the test cannot make a real full disk.
    return serverMissing(t, `cannot mount a small tmpfs for a full file system: ${String((err as { stderr?: Buffer }).stderr ?? err).trim()}`);
  }
  t.teardown(() => execFileSync('umount', ['-l', auditFs]));
  const svc = await startTestService({ SVC_JOURNAL_KIND: 'rdb-embedded', SVC_AUDIT_EMBEDDED_PATH: path.join(auditFs, 'audit.db') }, { dir });
  t.teardown(() => svc.stop());
  const api = svc.client('ops');
  const active = await api.key({ algorithm: 'AES' });
  const preActive = await api.key({ algorithm: 'AES' }, false);
  t.equal((await api.get('/readyz')).body.checks.audit.ok, true);

  const filler = path.join(auditFs, 'filler');
  try {
    writeFileSync(filler, Buffer.alloc(4 * 1024 * 1024));
  } catch {
    // ENOSPC: the file system is now full.
  }
  const during = await changesDuringOutage(svc, active, preActive);
  for (const [name, res] of Object.entries(during)) {
    t.equal(res.status, 500, `${name} answers 500 while the audit store is full`);
    t.equal(res.body.error, 'InternalError');
    t.notOk(res.body.ciphertextBase64, `${name} returns no cryptographic output`);
  }
  const ready = await api.get('/readyz');
  t.equal(ready.status, 503, 'readiness notices a store that can no longer be written');
  t.equal(ready.body.checks.audit.ok, false);
  const failures = /^svc_audit_write_failures_total (\d+)$/m.exec(await (await fetch(`${svc.url}/metrics`)).text());
  t.ok(Number(failures?.[1]) >= Object.keys(during).length, 'every failed audit write is counted in svc_audit_write_failures_total');

  const held = journalOf(path.join(dir, 'journal.db'));
  t.ok(held.outbox.length >= 1, 'the records of changes that happened are held in the journal outbox');

  rmSync(filler);
  await svc.kernel.relay.runOnce(new Date(Date.now() + 60_000).toISOString());
  const { events, outbox } = journalOf(path.join(dir, 'journal.db'));
  t.same(outbox, [], 'the outbox is delivered once the store can be written again');
  const rows = (await api.get('/v1/audit?limit=1000')).body.records;
  assertEveryChangeAudited(t, events, rows);
  t.equal((await api.get('/readyz')).status, 200);
});

t.test('PostgreSQL audit store stopped: no change takes effect without its record', async (t) => {
  const pg = privatePostgres(t);
  if (!pg) return;
  const c = serverConnection(pg.url, 'postgresql', pg.env.SVC_JDBC_USERNAME!, pg.env.SVC_JDBC_PASSWORD!);
  const svc = await startTestService({ ...pg.env, SVC_JOURNAL_KIND: 'rdb-embedded', SVC_DB_ACQUIRE_TIMEOUT_MS: '1000' });
  t.teardown(() => svc.stop());
  const api = svc.client('ops');
  const active = await api.key({ algorithm: 'AES' });
  const preActive = await api.key({ algorithm: 'AES' }, false);

  pg.down();
  const during = await changesDuringOutage(svc, active, preActive);
  for (const [name, res] of Object.entries(during)) {
    t.equal(res.status, 503, `${name} answers 503 while the audit store is unreachable`);
    t.equal(res.body.error, 'ServiceUnavailable');
    t.notOk(res.body.ciphertextBase64, `${name} returns no cryptographic output`);
  }
  t.equal((await api.get('/readyz')).body.checks.audit.ok, false);
  t.ok(journalOf(path.join(svc.dir, 'journal.db')).outbox.length >= 1, 'the records of changes that happened are held in the journal outbox');

  pg.up();
  await svc.kernel.relay.runOnce(new Date(Date.now() + 60_000).toISOString());
  const { events, outbox } = journalOf(path.join(svc.dir, 'journal.db'));
  t.same(outbox, [], 'the outbox is delivered once the store is back');
  const knex = knexFactory({ client: 'pg', connection: { host: c.host, port: c.port, database: c.database, user: c.user, password: c.password } });
  t.teardown(() => knex.destroy());
  assertEveryChangeAudited(t, events, await knex('svc_audit').select('operation', 'resource', 'outcome'));
});
