import t from 'tap';
import { ApiClient, b64 } from '../helpers/client.ts';
import { privatePostgres } from '../helpers/private-postgres.ts';
import { spawnService } from '../helpers/process.ts';

const LOOPBACK = {
  SVC_HTTP_HOST: '127.0.0.1',
  SVC_HTTP_PORT: '0',
  SVC_CRYPTO_LOCAL_KEK: Buffer.alloc(32, 5).toString('base64'),
};

t.test('database down at boot: the boot fails in bounded time, naming the database but not the password', async (t) => {
  const started = Date.now();
  const svc = spawnService({
    ...LOOPBACK,
    SVC_JOURNAL_KIND: 'rdb-server-1',
    SVC_AUDIT_KIND: 'stdout',
    SVC_DB_BOOT_TIMEOUT_MS: '3000',
    SVC_JDBC_URL: 'postgres://svc:hunter2-secret@127.0.0.1:1/svc',
    SVC_JDBC_PASSWORD: '',
  });
  t.equal(await svc.exited, 1);
  t.ok(Date.now() - started < 20_000, 'within the boot bound');
  t.match(svc.stderr(), /cannot use PostgreSQL at 127\.0\.0\.1:1\/svc/);
  t.notMatch(svc.stderr() + svc.stdout(), /hunter2-secret/);
});

t.test('database lost while running: 503, then recovery by itself, nothing acknowledged lost', async (t) => {
  const pg = privatePostgres(t);
  if (!pg) return;
  const svc = spawnService({ ...LOOPBACK, ...pg.env, SVC_DB_ACQUIRE_TIMEOUT_MS: '1000' });
  t.teardown(() => svc.child.kill('SIGKILL'));
  const api = new ApiClient(`http://127.0.0.1:${await svc.listening}`, { 'X-Svc-User': 'ops' });
  const id = await api.key({ algorithm: 'AES' });
  const before = await api.post(`/v1/keys/${id}/encrypt`, { plaintextBase64: b64('kept') });
  t.equal(before.status, 200);

  pg.down();
  const during = await api.post(`/v1/keys/${id}/rotate`, {});
  t.equal(during.status, 503);
  t.equal(during.body.error, 'ServiceUnavailable');
  t.notMatch(during.body.message, /password|svc-test-password/);
  const create = await api.post('/v1/keys', { spec: { name: 'during', algorithm: 'AES' } });
  t.equal(create.status, 503);
  const ready = await api.get('/readyz');
  t.equal(ready.status, 503);

  pg.up();
  let after = await api.post(`/v1/keys/${id}/decrypt`, { ciphertextBase64: before.body.ciphertextBase64 });
  for (let i = 0; i < 50 && after.status === 503; i++) {
    await new Promise((r) => setTimeout(r, 200));
    after = await api.post(`/v1/keys/${id}/decrypt`, { ciphertextBase64: before.body.ciphertextBase64 });
  }
  t.same(
    after.body,
    { plaintextBase64: b64('kept'), keyVersion: 1 },
    'recovered, and the key acknowledged before the outage is intact',
  );
  t.equal((await api.get('/readyz')).status, 200);
  const rows = await api.auditOf(id);
  t.ok(
    rows.some((r) => r.operation === 'Encrypt' && r.outcome === 'Success'),
    'the acknowledged audit row survived',
  );
});
