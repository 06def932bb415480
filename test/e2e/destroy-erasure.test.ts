import { readFileSync } from 'node:fs';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import t, { type Test } from 'tap';
import { Database } from '../../plugins/sql-support/sqlite-driver.ts';
import { b64, type ApiClient } from '../helpers/client.ts';
import { freshDatabase, type TestDatabase } from '../helpers/databases.ts';
import { everyByte, holdSqliteReader, postgresTableFiles, recoverAesMaterial } from '../helpers/forensics.ts';
import { startTestService, tempDir, type TestService } from '../helpers/service.ts';
import { until } from '../helpers/until.ts';

/**
 * Destroy is an erase that nobody can block and nobody is blocked by: a reader of SQLite's WAL (a
 * backup), a lock or an old snapshot on PostgreSQL only delay the erase of the files, which the DELETE
 * says (`erasure: pending`), the gauge, /readyz and the audit trail show, and the service finishes by
 * itself once they go, across a restart too. Checked as an attacker holding the KEK and the raw files.
 */

/** A call that must be answered; a caller stalled behind a lock fails the test instead of hanging it. */
async function answered<T>(what: string, call: Promise<T>, ms = 20_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const stalled = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} was not answered within ${ms} ms: it is stalled`)), ms);
  });
  return Promise.race([call, stalled]).finally(() => clearTimeout(timer));
}

const pendingGauge = async (svc: TestService) =>
  Number(/^svc_erasure_pending (\d+)$/m.exec(await (await fetch(`${svc.url}/metrics`)).text())?.[1]);
/** /readyz as an anonymous caller (a load balancer) reads it. */
const readyz = async (svc: TestService) => {
  const res = await fetch(`${svc.url}/readyz`);
  return {
    status: res.status,
    body: (await res.json()) as { checks: Record<string, { ok: boolean; state: string; detail?: string }> },
  };
};
const erasureCheck = async (svc: TestService) => (await readyz(svc)).body.checks.erasure!;

/**
 * What every observer sees while an erase is pending: the gauge, a ready node with a pending check, and the audit row.
 */
async function assertPending(t: Test, svc: TestService, api: ApiClient, keyId: string) {
  t.equal(await pendingGauge(svc), 1, 'svc_erasure_pending counts the key');
  const ready = await readyz(svc);
  t.equal(ready.status, 200, 'a pending erase does not take the node out of rotation');
  t.same(
    ready.body.checks.erasure,
    { ok: true, state: 'pending' },
    'anonymous /readyz names the check and its state only',
  );
  const human = (await api.get('/readyz')).body.checks.erasure;
  t.match(human.detail, /^1 destroyed key\(s\) await the erase of their storage: /, 'a Human reads how many and why');
  const failed = (await api.auditOf(keyId)).filter(
    (r) => r.operation === 'Destroy' && r.principal.subject === 'svc-system',
  );
  t.equal(failed.length, 1, 'the failed erase is audited once');
  t.match(failed[0], { outcome: 'InternalError', context: { erasure: 'pending', 'erasure.reason': String } });
}

/** Once the obstacle is gone the service finishes by itself: gauge 0, check ok, and the completion audited. */
async function awaitComplete(t: Test, svc: TestService, api: ApiClient, keyId: string) {
  await until(async () => (await erasureCheck(svc)).state === 'ok', 'the background erase to complete', 60_000);
  t.equal(await pendingGauge(svc), 0);
  const rows = (await api.auditOf(keyId)).filter(
    (r) => r.operation === 'Destroy' && r.principal.subject === 'svc-system',
  );
  t.match(rows.at(-1), { outcome: 'Success', context: { erasure: 'complete' } }, 'the completed erase is audited');
}

t.test(
  'SQLite: a reader holding the WAL makes the erase pending, not skipped; ' +
    'it completes once the reader goes, across a restart',
  async (t) => {
    const dir = tempDir();
    const env = { SVC_JOURNAL_KIND: 'rdb-embedded' };
    let svc = await startTestService(env, { dir });
    t.teardown(() => svc.stop());
    const api = svc.client('forensic');
    const id = await api.key({ algorithm: 'AES' });
    t.equal(
      (await api.post(`/v1/keys/${id}/encrypt`, { plaintextBase64: b64('sealed before the destroy') })).status,
      200,
    );
    t.equal((await api.post(`/v1/keys/${id}/compromise`, { reason: 'lost laptop' })).status, 200);
    const journalFile = path.join(dir, 'journal.db');
    const db = new Database(journalFile, { readonly: true });
    const materialId = JSON.parse(
      (db.prepare('select payload from svc_key_events where key_id = ? and seq = 1').get(id) as { payload: string })
        .payload,
    ).materialId as string;
    db.close();
    const kek = Buffer.from(readFileSync(path.join(dir, 'kek.key'), 'utf8').trim(), 'base64');

    const reader = await holdSqliteReader(journalFile);
    t.teardown(() => reader.release());
    const destroyed = await answered('DELETE', api.call('DELETE', `/v1/keys/${id}`));
    t.equal(destroyed.status, 200);
    t.match(
      destroyed.body,
      { id, state: 'Destroyed', erasure: 'pending' },
      'the DELETE says the erase is not complete yet',
    );
    t.equal((await api.get(`/v1/keys/${id}`)).body.state, 'Destroyed');
    t.ok(
      recoverAesMaterial(everyByte(dir), kek, id, materialId).length > 0,
      'control: the reader really keeps the key-wrapping key in journal.db-wal',
    );
    await assertPending(t, svc, api, id);

    // A restart while the reader still holds the WAL: the task is in journal.db, so the new process resumes it.
    await svc.stop();
    svc = await startTestService(env, { dir });
    t.equal((await erasureCheck(svc)).state, 'pending', 'the restarted node still knows the erase is pending');
    t.equal(await pendingGauge(svc), 1);

    await reader.release();
    await awaitComplete(t, svc, svc.client('forensic'), id);
    const wal = path.join(dir, 'journal.db-wal');
    t.same(
      recoverAesMaterial(readFileSync(wal), kek, id, materialId),
      [],
      'journal.db-wal no longer holds the key-wrapping key',
    );
    t.same(
      recoverAesMaterial(everyByte(dir), kek, id, materialId),
      [],
      'nor does any other byte of the data directory',
    );
  },
);

/**
 * The pieces of a PostgreSQL erase test: a service, a superuser connection to its database, and a key to
 * destroy. `prepare` runs as the superuser before the service starts.
 */
async function postgresSetup(t: Test, prepare?: (admin: Knex, db: TestDatabase) => Promise<void>) {
  const db = await freshDatabase(t, 'postgresql');
  if (!db) return undefined;
  // One entry in each cache, so the kept key's encrypt after the destroy reads its KWK from svc_key_kwk.
  const env = { ...db.env, SVC_CRYPTO_CACHE_MAX_ENTRIES: '1' };
  const admin: Knex = knexFactory({
    client: 'pg',
    connection: process.env.SVC_TEST_PG_ADMIN_URL!.replace(/\/postgres$/, `/${db.url.split('/').pop()}`),
    pool: { min: 0, max: 4 },
  });
  t.teardown(() => admin.destroy());
  await prepare?.(admin, db);
  const svc = await startTestService(env);
  const api = svc.client('forensic');
  const kept = await api.key({ algorithm: 'AES' });
  t.equal((await api.post(`/v1/keys/${kept}/encrypt`, { plaintextBase64: b64('x') })).status, 200);
  const id = await api.key({ algorithm: 'AES' });
  t.equal(
    (await api.post(`/v1/keys/${id}/encrypt`, { plaintextBase64: b64('sealed before the destroy') })).status,
    200,
  );
  t.equal((await api.post(`/v1/keys/${id}/compromise`, { reason: 'lost laptop' })).status, 200);
  const materialId = JSON.parse(
    ((await admin('svc_key_events').where({ key_id: id, seq: 1 }).first('payload')) as { payload: string }).payload,
  ).materialId as string;
  const kek = Buffer.from(db.env.SVC_CRYPTO_LOCAL_KEK!, 'base64');
  const recovered = async () =>
    recoverAesMaterial(await postgresTableFiles(admin, ['svc_key_kwk', 'svc_key_material']), kek, id, materialId);
  return { env, svc, admin, api, kept, id, recovered };
}

t.test(
  'PostgreSQL: a session holding a lock on the KWK table delays the ' +
    'erase; DELETE, creates and encrypts are answered meanwhile; a restart resumes it',
  async (t) => {
    const s = await postgresSetup(t);
    if (!s) return;
    let svc = s.svc;
    t.teardown(() => svc.stop());
    const holder = await s.admin.transaction();
    t.teardown(() => holder.rollback().catch(() => {}));
    await holder.raw('lock table svc_key_kwk in access share mode');

    const destroyed = await answered('DELETE', s.api.call('DELETE', `/v1/keys/${s.id}`));
    t.equal(destroyed.status, 200);
    t.match(destroyed.body, { id: s.id, state: 'Destroyed', erasure: 'pending' });
    t.equal(
      (await answered('create', s.api.post('/v1/keys', { spec: { name: 'meanwhile', algorithm: 'AES' } }))).status,
      201,
      'a create is answered while the erase waits',
    );
    t.equal(
      (await answered('encrypt', s.api.post(`/v1/keys/${s.kept}/encrypt`, { plaintextBase64: b64('y') }))).status,
      200,
      'an encrypt that reads its KWK from the table is answered',
    );
    t.ok((await s.recovered()).length > 0, 'control: the deleted KWK row is still in the heap file');
    await assertPending(t, svc, s.api, s.id);
    const again = await answered('DELETE again', s.api.call('DELETE', `/v1/keys/${s.id}`));
    t.equal(again.status, 200, 'DELETE again on a key whose erase is pending tries once more and says where it stands');
    t.match(again.body, { id: s.id, state: 'Destroyed', erasure: 'pending' });

    await svc.stop();
    svc = await startTestService(s.env);
    t.equal((await erasureCheck(svc)).state, 'pending', 'the restarted node resumes the pending erase');

    await holder.commit();
    await awaitComplete(t, svc, svc.client('forensic'), s.id);
    t.same(await s.recovered(), [], 'no page of the journal tables keeps the material or its key-wrapping key');
    t.equal(
      (await svc.client('forensic').call('DELETE', `/v1/keys/${s.id}`)).status,
      409,
      'once erased, DELETE again is a refused transition',
    );
  },
);

t.test(
  'PostgreSQL: a client repeating DELETE on a key whose erase is pending ' +
    'cannot keep the KWK table locked for everyone else',
  async (t) => {
    const s = await postgresSetup(t);
    if (!s) return;
    t.teardown(() => s.svc.stop());
    // Every rebuild then queues for its exclusive lock until lock_timeout, and every create or uncached encrypt queues
    // behind it meanwhile.
    const holder = await s.admin.transaction();
    t.teardown(() => holder.rollback().catch(() => {}));
    await holder.raw('lock table svc_key_kwk in access share mode');
    t.match((await answered('DELETE', s.api.call('DELETE', `/v1/keys/${s.id}`))).body, { erasure: 'pending' });

    // The share of time a rebuild waits for the exclusive lock, sampled every few ms for 3 s after the first
    // attempts' burst (250 ms of back-to-back attempts). Each sample counts for the time since the one
    // before: while a rebuild waits, the DELETE loops wait too and the samples come faster, so counting
    // samples instead of time would overstate it.
    let sampling = true;
    let lockedMs = 0;
    let sampledMs = 0;
    const sampler = (async () => {
      await new Promise((resolve) => setTimeout(resolve, 400)); // past the burst, not a wait for a condition
      const end = Date.now() + 3_000;
      let last = Date.now();
      while (Date.now() < end) {
        const waiting = await s.admin.raw(
          'select count(*)::int as n from pg_locks where relation = ' +
            "'svc_key_kwk'::regclass and mode = 'AccessExclusiveLock' and not granted",
        );
        const now = Date.now();
        sampledMs += now - last;
        if (waiting.rows[0].n > 0) lockedMs += now - last;
        last = now;
        await new Promise((resolve) => setTimeout(resolve, 5)); // a sampling period, not a wait for a condition
      }
      sampling = false;
    })();
    // Eight clients repeat DELETE on the pending key, each as soon as the last one was answered, while the samples are
    // taken.
    const statuses = new Set<number>();
    let deletes = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (sampling) {
          statuses.add((await answered('DELETE again', s.api.call('DELETE', `/v1/keys/${s.id}`))).status);
          deletes++;
        }
      }),
    );
    await sampler;
    t.same([...statuses], [200], `each of ${deletes} DELETEs again answered 200`);
    const locked = lockedMs / sampledMs;
    t.ok(
      locked < 0.4,
      `a rebuild queued for the table's exclusive lock ${Math.round(locked * 100)}% of the time (the attempts' budget keeps it near a tenth)`,
    );

    await holder.commit();
    await awaitComplete(t, s.svc, s.api, s.id);
  },
);

t.test(
  'PostgreSQL: a snapshot older than the destroy keeps the deleted row ' +
    'through VACUUM FULL; the erase is pending until it ends',
  async (t) => {
    const s = await postgresSetup(t);
    if (!s) return;
    t.teardown(() => s.svc.stop());
    // As pg_dump does: a repeatable-read transaction whose snapshot predates the destroy, with no lock on svc_key_kwk.
    const snapshot = await s.admin.transaction({ isolationLevel: 'repeatable read' });
    t.teardown(() => snapshot.rollback().catch(() => {}));
    await snapshot('svc_key_events').count({ n: '*' });

    const destroyed = await answered('DELETE', s.api.call('DELETE', `/v1/keys/${s.id}`));
    t.equal(destroyed.status, 200);
    t.match(
      destroyed.body,
      { id: s.id, state: 'Destroyed', erasure: 'pending' },
      'a rebuild that had to keep the row is not reported as an erase',
    );
    t.ok((await s.recovered()).length > 0, 'control: VACUUM FULL copied the deleted KWK row into the new heap file');
    await assertPending(t, s.svc, s.api, s.id);

    await snapshot.commit();
    await awaitComplete(t, s.svc, s.api, s.id);
    t.same(await s.recovered(), [], 'once the snapshot ended, the rebuild left no copy');
  },
);

/** A service on PostgreSQL whose sessions get German messages, checked to be so. */
async function germanSetup(t: Test) {
  const s = await postgresSetup(t, async (admin, db) => {
    // PostgreSQL refuses a locale it cannot load, so this needs de_DE.UTF-8 where the test server runs.
    await admin
      .raw(`alter role ?? in database ?? set lc_messages = 'de_DE.UTF-8'`, [db.user, db.url.split('/').pop()!])
      .catch((err: Error) => {
        throw new Error(
          `${err.message}: install the de_DE.UTF-8 locale where the PostgreSQL test server runs (localedef --no-archive -i de_DE -f UTF-8 de_DE.UTF-8, as root) and run again`,
        );
      });
  });
  if (!s) return undefined;
  t.teardown(() => s.svc.stop());
  const settings = await s.admin.raw(
    'select s.setconfig from pg_db_role_setting s join pg_roles r on r.oid ' +
      '= s.setrole join pg_database d on d.oid = s.setdatabase where ' +
      'r.rolname = ? and d.datname = current_database()',
    [process.env.SVC_TEST_PG_USER!],
  );
  t.same(settings.rows, [{ setconfig: ['lc_messages=de_DE.UTF-8'] }], "the service's sessions get German messages");
  const german = await s.admin
    .transaction(async (trx) => {
      await trx.raw("set local lc_messages = 'de_DE.UTF-8'");
      return trx.raw('select 1/0').then(
        () => '',
        (err: Error) => err.message,
      );
    })
    .catch((err: Error) => err.message);
  t.match(german, /Division durch Null/, 'and PostgreSQL speaks German here');
  return s;
}

/*
 * Each case below starts its own service: a node spends at most a tenth of its time on erase attempts,
 * so a DELETE right after earlier attempts (the retries while a snapshot held the row) may rightly
 * answer `pending` without trying; a fresh node tries at once.
 */
t.test(
  'PostgreSQL whose messages are in German (lc_messages de_DE.UTF-8): a DELETE with nothing in the way erases',
  async (t) => {
    const s = await germanSetup(t);
    if (!s) return;
    t.match(
      (await answered('DELETE', s.api.call('DELETE', `/v1/keys/${s.id}`))).body,
      { id: s.id, state: 'Destroyed', erasure: 'complete' },
      'with nothing in the way, the DELETE answers complete',
    );
    t.equal(await pendingGauge(s.svc), 0);
    t.same(await s.recovered(), [], 'the rebuild left no copy');
  },
);

t.test(
  'PostgreSQL whose messages are in German (lc_messages de_DE.UTF-8): a snapshot older than the destroy still makes the erase pending',
  async (t) => {
    const s = await germanSetup(t);
    if (!s) return;
    const snapshot = await s.admin.transaction({ isolationLevel: 'repeatable read' });
    t.teardown(() => snapshot.rollback().catch(() => {}));
    await snapshot('svc_key_events').count({ n: '*' });
    const destroyed = await answered('DELETE', s.api.call('DELETE', `/v1/keys/${s.id}`));
    t.match(
      destroyed.body,
      { id: s.id, state: 'Destroyed', erasure: 'pending' },
      'a rebuild that had to keep the row is not reported as an erase, whatever the language',
    );
    t.ok((await s.recovered()).length > 0, 'control: VACUUM FULL copied the deleted KWK row into the new heap file');
    await snapshot.commit();
    await awaitComplete(t, s.svc, s.api, s.id);
    t.same(await s.recovered(), [], 'once the snapshot ended, the rebuild left no copy');
  },
);

t.test(
  'PostgreSQL upgrade: a KWK that an older version deleted but never got ' +
    'out of the heap (a cancelled VACUUM FULL) is erased at the first start ' +
    'of this version',
  async (t) => {
    const s = await postgresSetup(t);
    if (!s) return;
    const rowsOf = async (table: string) => s.admin(table).where({ key_id: s.id }).select('*');
    const [kwk, material] = [await rowsOf('svc_key_kwk'), await rowsOf('svc_key_material')];
    t.match((await s.api.call('DELETE', `/v1/keys/${s.id}`)).body, { erasure: 'complete' });
    await s.svc.stop();
    // What the older version left: the key Destroyed, its rows deleted, their tuples still in the heap
    // files because the rebuild was cancelled; and a journal that has no erasure tasks yet.
    await s.admin('svc_key_kwk').insert(kwk);
    await s.admin('svc_key_material').insert(material);
    await s.admin('svc_key_kwk').where({ key_id: s.id }).delete();
    await s.admin('svc_key_material').where({ key_id: s.id }).delete();
    await s.admin.schema.dropTable('svc_erasure_tasks');
    await s.admin('svc_journal_migrations').where({ name: '006_erasure_tasks' }).delete();
    t.ok((await s.recovered()).length > 0, 'control: the heap files hold the KWK, as the older version left them');

    const upgraded = await startTestService(s.env);
    t.teardown(() => upgraded.stop());
    await until(
      async () =>
        (await s.admin('svc_erasure_tasks').count({ n: '*' }))[0]!.n === '0' &&
        (await erasureCheck(upgraded)).state === 'ok',
      'the erase redone at upgrade',
      60_000,
    );
    t.same(await s.recovered(), [], 'the first start of this version erased it');
  },
);
