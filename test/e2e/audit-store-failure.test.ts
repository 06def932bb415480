import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { Database } from '../../plugins/sql-support/sqlite-driver.ts';
import knexFactory from 'knex';
import t, { type Test } from 'tap';
import { serverConnection } from '../../plugins/sql-support/connection-url.ts';
import { holdSqliteReader } from '../helpers/forensics.ts';
import { privatePostgres } from '../helpers/private-postgres.ts';
import { startTestService, tempDir, type TestService } from '../helpers/service.ts';
import { serverMissing } from '../helpers/test-server.ts';
import { until } from '../helpers/until.ts';

/** The journal's events and outbox, read from its SQLite file with SQLite's own client. */
function journalOf(file: string) {
  const db = new Database(file, { readonly: true });
  try {
    const events = db.prepare('select key_id, type from svc_key_events order by key_id, seq').all() as Array<{
      key_id: string;
      type: string;
    }>;
    const outbox = db
      .prepare('select record from svc_audit_outbox')
      .all()
      .map((r) => JSON.parse((r as { record: string }).record));
    return { events, outbox };
  } finally {
    db.close();
  }
}

const OPERATION_OF: Record<string, string> = {
  KeyCreated: 'Create',
  KeyActivated: 'Activate',
  Rotated: 'Rotate',
  Compromised: 'Compromise',
  Destroyed: 'Destroy',
};

/**
 * Every journal event has exactly one Success row of its operation in the audit trail. The erasure
 * worker's own record of a Destroy whose erase finished on a later attempt (correlation id
 * `erasure-<key>`, by svc-system) is another event, the erase, and is not counted: on a loaded machine
 * the first attempt may not finish.
 */
function assertEveryChangeAudited(
  t: Test,
  events: Array<{ key_id: string; type: string }>,
  rows: Array<{ operation: string; resource: string; outcome: string; correlationId?: string }>,
) {
  const callers = rows.filter((r) => !r.correlationId?.startsWith('erasure-'));
  for (const e of events) {
    const matching = callers.filter(
      (r) => r.resource === e.key_id && r.operation === OPERATION_OF[e.type] && r.outcome === 'Success',
    );
    t.equal(matching.length, 1, `${e.type} of ${e.key_id} has exactly one audit record`);
  }
}

/**
 * Drives every kind of state change, and two calls that change nothing, while the audit store is
 * failing. A change commits with its record in the journal's outbox, so it is acknowledged with its
 * normal answer; a call that changes nothing has no durable record and must fail closed.
 */
async function callsDuringOutage(
  t: Test,
  svc: TestService,
  activeKey: string,
  preActiveKey: string,
  failure: { status: number; error: string },
) {
  const api = svc.client('ops');
  const create = await api.post('/v1/keys', { spec: { name: 'during-outage', algorithm: 'AES' } });
  t.equal(create.status, 201, 'create is acknowledged: its record waits in the outbox');
  t.match(create.body, { id: String, state: 'PreActive' });
  t.equal((await api.post(`/v1/keys/${activeKey}/rotate`, {})).status, 200, 'rotate is acknowledged');
  t.equal(
    (await api.post(`/v1/keys/${preActiveKey}/compromise`, { reason: 'drill' })).status,
    200,
    'compromise is acknowledged',
  );
  const destroy = await api.call('DELETE', `/v1/keys/${preActiveKey}`);
  t.equal(destroy.status, 200, 'destroy is acknowledged: the client knows the key is gone');
  t.match(destroy.body, { id: preActiveKey, state: 'Destroyed' });
  const reads = {
    encrypt: await api.post(`/v1/keys/${activeKey}/encrypt`, { plaintextBase64: 'AAAA' }),
    get: await api.get(`/v1/keys/${activeKey}`),
  };
  for (const [name, res] of Object.entries(reads)) {
    t.equal(res.status, failure.status, `${name} changes nothing, so it fails closed (${failure.status})`);
    t.equal(res.body.error, failure.error);
    t.notOk(res.body.ciphertextBase64, `${name} returns no cryptographic output`);
  }
  return create.body.id as string;
}

/** The key created while the audit store failed is a working key once the store is back. */
async function usable(t: Test, svc: TestService, keyId: string) {
  const api = svc.client('ops');
  t.equal((await api.post(`/v1/keys/${keyId}/activate`)).status, 200);
  t.equal(
    (await api.post(`/v1/keys/${keyId}/encrypt`, { plaintextBase64: 'AAAA' })).status,
    200,
    'the key created during the outage encrypts',
  );
}

/** Appends to `file` until the file system has no byte left (ENOSPC). */
function fillUp(file: string): void {
  const chunk = Buffer.alloc(4096);
  try {
    for (;;) appendFileSync(file, chunk);
  } catch {
    // ENOSPC: the file system is full.
  }
}

t.test('SQLite audit store on a full file system: no change takes effect without its record', async (t) => {
  const dir = tempDir();
  const auditFs = path.join(dir, 'audit-fs');
  mkdirSync(auditFs);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', auditFs], { stdio: 'pipe' });
  } catch (err) {
    // Mounting needs root (CI runs as root); anywhere else the test cannot make a real full disk.
    return serverMissing(
      t,
      `cannot mount a small tmpfs for a full file system: ${String((err as { stderr?: Buffer }).stderr ?? err).trim()}`,
    );
  }
  t.teardown(() => execFileSync('umount', ['-l', auditFs]));
  const svc = await startTestService(
    { SVC_JOURNAL_KIND: 'rdb-embedded', SVC_AUDIT_EMBEDDED_PATH: path.join(auditFs, 'audit.db') },
    { dir },
  );
  t.teardown(() => svc.stop());
  const api = svc.client('ops');
  const active = await api.key({ algorithm: 'AES' });
  const preActive = await api.key({ algorithm: 'AES' }, false);
  t.equal((await api.get('/readyz')).body.checks.audit.ok, true);
  // Stored records leave the outbox in batches a moment later; the outage starts from an empty outbox.
  await until(
    () => journalOf(path.join(dir, 'journal.db')).outbox.length === 0,
    'the set-up calls acknowledged in the outbox',
    60_000,
  );

  const filler = path.join(auditFs, 'filler');
  // SQLite cuts its checkpointed WAL back at its next commit, which frees space that a later write uses. A
  // reader holding a snapshot keeps the WAL from being started over, so every write must append to it and
  // fails on the full disk; and the disk is full for good once a write (readiness probes one) has failed
  // with every free byte taken.
  const reader = await holdSqliteReader(path.join(auditFs, 'audit.db'), 'svc_audit');
  t.teardown(() => reader.release());
  await until(
    async () => {
      fillUp(filler);
      return (await api.get('/readyz')).status === 503;
    },
    'an audit write to fail on the full file system',
    60_000,
  );
  fillUp(filler);
  const created = await callsDuringOutage(t, svc, active, preActive, { status: 500, error: 'InternalError' });
  const ready = await api.get('/readyz');
  t.equal(ready.status, 503, 'readiness notices a store that can no longer be written');
  t.equal(ready.body.checks.audit.ok, false);
  const failures = /^svc_audit_write_failures_total (\d+)$/m.exec(await (await fetch(`${svc.url}/metrics`)).text());
  t.ok(Number(failures?.[1]) >= 6, 'every failed audit write is counted in svc_audit_write_failures_total');

  const held = journalOf(path.join(dir, 'journal.db'));
  t.equal(held.outbox.length, 4, 'the records of the four acknowledged changes are held in the journal outbox');

  await reader.release();
  rmSync(filler);
  // The service's own relay delivers them (records older than its 10 s grace, every 5 s).
  await until(
    () => journalOf(path.join(dir, 'journal.db')).outbox.length === 0,
    'the relay to deliver the outbox',
    60_000,
  );
  const { events } = journalOf(path.join(dir, 'journal.db'));
  const rows = (await api.get('/v1/audit?limit=1000')).body.records;
  assertEveryChangeAudited(t, events, rows);
  t.ok(
    rows.some((r: { operation: string; resource: string }) => r.operation === 'Create' && r.resource === created),
    'the acknowledged create has its audit row',
  );
  t.equal((await api.get('/readyz')).status, 200);
  await usable(t, svc, created);
});

t.test('PostgreSQL audit store stopped: no change takes effect without its record', async (t) => {
  const pg = privatePostgres(t);
  if (!pg) return;
  const c = serverConnection(pg.url, 'postgresql', pg.env.SVC_JDBC_USERNAME!, pg.env.SVC_JDBC_PASSWORD!);
  const svc = await startTestService({
    ...pg.env,
    SVC_JOURNAL_KIND: 'rdb-embedded',
    SVC_DB_ACQUIRE_TIMEOUT_MS: '1000',
  });
  t.teardown(() => svc.stop());
  const api = svc.client('ops');
  const active = await api.key({ algorithm: 'AES' });
  const preActive = await api.key({ algorithm: 'AES' }, false);
  await until(
    () => journalOf(path.join(svc.dir, 'journal.db')).outbox.length === 0,
    'the set-up calls acknowledged in the outbox',
    60_000,
  );

  pg.down();
  const created = await callsDuringOutage(t, svc, active, preActive, { status: 503, error: 'ServiceUnavailable' });
  t.equal((await api.get('/readyz')).body.checks.audit.ok, false);
  t.equal(
    journalOf(path.join(svc.dir, 'journal.db')).outbox.length,
    4,
    'the records of the four acknowledged changes are held in the journal outbox',
  );

  pg.up();
  await until(
    () => journalOf(path.join(svc.dir, 'journal.db')).outbox.length === 0,
    'the relay to deliver the outbox once the store is back',
    60_000,
  );
  const { events } = journalOf(path.join(svc.dir, 'journal.db'));
  const knex = knexFactory({
    client: 'pg',
    connection: { host: c.host, port: c.port, database: c.database, user: c.user, password: c.password },
  });
  t.teardown(() => knex.destroy());
  const rows = await knex('svc_audit').select('operation', 'resource', 'outcome');
  assertEveryChangeAudited(t, events, rows);
  t.ok(
    rows.some((r: { operation: string; resource: string }) => r.operation === 'Create' && r.resource === created),
    'the acknowledged create has its audit row',
  );
  await usable(t, svc, created);
});
