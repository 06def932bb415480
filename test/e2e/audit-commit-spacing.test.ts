import t from 'tap';
import { ApiClient, b64 } from '../helpers/client.ts';
import { freshDatabase, type ServerKind } from '../helpers/databases.ts';
import { spawnService } from '../helpers/process.ts';

const INTERVAL_MS = 400;

for (const kind of ['postgresql', 'mysql'] as ServerKind[])
  t.test(`SVC_AUDIT_COMMIT_INTERVAL_MS spaces the ${kind} audit sink's commits and loses no record`, async (t) => {
    const db = await freshDatabase(t, kind);
    if (!db) return;
    const svc = spawnService({
      SVC_HTTP_HOST: '127.0.0.1',
      SVC_HTTP_PORT: '0',
      SVC_CRYPTO_LOCAL_KEK: Buffer.alloc(32, 5).toString('base64'),
      ...db.env,
      SVC_AUDIT_COMMIT_INTERVAL_MS: String(INTERVAL_MS),
    });
    t.teardown(() => svc.child.kill('SIGKILL'));
    const api = new ApiClient(`http://127.0.0.1:${await svc.listening}`, { 'X-Svc-User': 'ops' });
    const id = await api.key({ algorithm: 'AES' });

    // A call right after another waits for the interval since the previous commit began: its answer needs its record.
    t.equal((await api.post(`/v1/keys/${id}/encrypt`, { plaintextBase64: b64('first') })).status, 200);
    const started = performance.now();
    t.equal((await api.post(`/v1/keys/${id}/encrypt`, { plaintextBase64: b64('second') })).status, 200);
    const waited = performance.now() - started;
    t.ok(waited >= INTERVAL_MS - 100, `the second call waited out the interval (${waited.toFixed(0)} ms)`);

    // Calls made together share the wait, and every one of them is on the trail.
    const together = await Promise.all(
      Array.from({ length: 8 }, (_, i) => api.post(`/v1/keys/${id}/encrypt`, { plaintextBase64: b64(`n${i}`) })),
    );
    t.same(
      together.map((r) => r.status),
      Array(8).fill(200),
    );
    const rows = await api.auditOf(id);
    t.equal(
      rows.filter((r) => r.operation === 'Encrypt' && r.outcome === 'Success').length,
      10,
      'ten encrypts audited',
    );
    const verified = await api.get('/v1/audit/verify');
    t.equal(verified.body.valid, true, 'the hash chain holds');
  });
