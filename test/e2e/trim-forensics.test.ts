import { readFileSync } from 'node:fs';
import path from 'node:path';
import knexFactory from 'knex';
import t, { type Test } from 'tap';
import { Database } from '../../plugins/sql-support/sqlite-driver.ts';
import { b64, type ApiClient } from '../helpers/client.ts';
import { freshDatabase } from '../helpers/databases.ts';
import { everyByte, postgresTableFiles, recoverAesMaterial } from '../helpers/forensics.ts';
import { ManualClock, startTestService, type TestService } from '../helpers/service.ts';
import { until } from '../helpers/until.ts';

/** An AES key at version 3, trimmed to minVersion 3: versions 1 and 2 must be gone from every byte. */
async function trimmedKey(t: Test, svc: TestService, api: ApiClient) {
  const id = await api.key({ algorithm: 'AES' });
  await api.post(`/v1/keys/${id}/rotate`, {});
  await api.post(`/v1/keys/${id}/rotate`, {});
  await api.post(`/v1/keys/${id}/encrypt`, { plaintextBase64: b64('x') });
  const trimmed = await api.post(`/v1/keys/${id}/trim`, { minVersion: 3 });
  t.match(trimmed.body, { minVersion: 3, erasure: /^(complete|pending)$/ }, 'trimmed');
  // The answer waits for the erase only briefly (trim-versions.test.ts holds that it does when idle); on a
  // loaded machine it may say pending: the files are read once the background erase has finished.
  await until(
    () => svc.kernel.container.resolve<{ erasure: { count: number } }>('keyService').erasure.count === 0,
    'the erase of the trimmed versions',
  );
  return id;
}

/** The material id of each version of a key, from its events' payloads (what an attacker with the files reads too). */
function materialIds(payloads: string[]): string[] {
  return payloads
    .map((p) => JSON.parse(p) as { type: string; materialId?: string })
    .filter((e) => e.materialId)
    .map((e) => e.materialId!);
}

t.test(
  'SQLite: after a trim, and after a scheduled destruction, no byte of ' +
    'the data directory gives the erased material back',
  async (t) => {
    const clock = new ManualClock(new Date());
    const svc = await startTestService(
      { SVC_JOURNAL_KIND: 'rdb-embedded', SVC_KEYS_DESTROY_CHECK_SECONDS: '1' },
      { clock },
    );
    t.teardown(() => svc.stop());
    const api = svc.client('forensic');
    const trimmed = await trimmedKey(t, svc, api);
    const scheduled = await api.key({ algorithm: 'AES' });
    await api.post(`/v1/keys/${scheduled}/revoke`, {});
    t.equal((await api.call('DELETE', `/v1/keys/${scheduled}?waitingDays=1`)).status, 202);
    clock.advance(86_400_000);
    await until(
      async () => (await api.get(`/v1/keys/${scheduled}`)).body.state === 'Destroyed',
      'the scheduled destruction',
    );
    await until(
      () => svc.kernel.container.resolve<{ erasure: { count: number } }>('keyService').erasure.count === 0,
      'its erase',
    );

    const journal = new Database(path.join(svc.dir, 'journal.db'), { readonly: true });
    const payloads = (keyId: string) =>
      (
        journal.prepare('select payload from svc_key_events where key_id = ? order by seq').all(keyId) as Array<{
          payload: string;
        }>
      ).map((r) => r.payload);
    const [trimmedIds, scheduledIds] = [materialIds(payloads(trimmed)), materialIds(payloads(scheduled))];
    journal.close();
    const kek = Buffer.from(readFileSync(path.join(svc.dir, 'kek.key'), 'utf8').trim(), 'base64');
    const bytes = everyByte(svc.dir);
    t.equal(trimmedIds.length, 3);
    t.ok(
      recoverAesMaterial(bytes, kek, trimmed, trimmedIds[2]!).length > 0,
      'control: the kept version 3 is found by the same search',
    );
    t.same(recoverAesMaterial(bytes, kek, trimmed, trimmedIds[0]!), [], 'version 1 is gone');
    t.same(recoverAesMaterial(bytes, kek, trimmed, trimmedIds[1]!), [], 'version 2 is gone');
    t.same(recoverAesMaterial(bytes, kek, scheduled, scheduledIds[0]!), [], 'the key destroyed on schedule is gone');
  },
);

t.test("PostgreSQL: after a trim, the journal tables' pages do not give the erased versions back", async (t) => {
  const db = await freshDatabase(t, 'postgresql');
  if (!db) return;
  const svc = await startTestService(db.env);
  t.teardown(() => svc.stop());
  const api = svc.client('forensic');
  const trimmed = await trimmedKey(t, svc, api);
  const admin = knexFactory({
    client: 'pg',
    connection: process.env.SVC_TEST_PG_ADMIN_URL!.replace(/\/postgres$/, `/${db.url.split('/').pop()}`),
  });
  t.teardown(() => admin.destroy());
  const ids = materialIds(
    (await admin('svc_key_events').where({ key_id: trimmed }).orderBy('seq').select('payload')).map(
      (r: { payload: string }) => r.payload,
    ),
  );
  const bytes = await postgresTableFiles(admin, [
    'svc_key_kwk',
    'svc_key_material',
    'svc_key_events',
    'svc_audit_outbox',
  ]);
  const kek = Buffer.from(db.env.SVC_CRYPTO_LOCAL_KEK!, 'base64');
  t.ok(
    recoverAesMaterial(bytes, kek, trimmed, ids[2]!).length > 0,
    'control: the kept version 3 is found by the same search',
  );
  t.same(
    recoverAesMaterial(bytes, kek, trimmed, ids[0]!),
    [],
    'no page keeps version 1 or a key-wrapping key that opens it',
  );
  t.same(recoverAesMaterial(bytes, kek, trimmed, ids[1]!), [], 'nor version 2');
});
