import knexFactory from 'knex';
import t from 'tap';
import { ApiClient, b64 } from '../helpers/client.ts';
import { freshDatabase, type ServerKind } from '../helpers/databases.ts';
import { spawnService, type ServiceProcess } from '../helpers/process.ts';

async function node(env: Record<string, string>): Promise<{ api: ApiClient; proc: ServiceProcess }> {
  const proc = spawnService({ SVC_HTTP_HOST: '127.0.0.1', SVC_HTTP_PORT: '0', ...env });
  const port = await proc.listening;
  return { api: new ApiClient(`http://127.0.0.1:${port}`, { 'X-Svc-User': 'ops' }), proc };
}

for (const kind of ['postgresql', 'mysql'] as ServerKind[]) {
  t.test(`two service processes on one ${kind} database`, async (t) => {
    const db = await freshDatabase(t, kind);
    if (!db) return;
    const a = await node(db.env);
    const b = await node(db.env);
    t.teardown(() => {
      a.proc.child.kill('SIGTERM');
      b.proc.child.kill('SIGTERM');
    });

    t.test('200 concurrent rotations spread over both nodes give versions 1..201, each exactly once', async (t) => {
      const id = await a.api.key({ algorithm: 'AES' });
      const results = await Promise.all(
        Array.from({ length: 200 }, (_, i) => (i % 2 ? a : b).api.post(`/v1/keys/${id}/rotate`, {})),
      );
      t.same(
        results.filter((r) => r.status !== 200).map((r) => r.body),
        [],
        'every rotation answered 200',
      );
      const answered = results.map((r) => r.body.currentVersion).sort((x, y) => x - y);
      t.same(
        answered,
        Array.from({ length: 200 }, (_, i) => i + 2),
        'each answer names a distinct new version',
      );
      t.equal((await a.api.get(`/v1/keys/${id}`)).body.currentVersion, 201);
      t.equal((await b.api.get(`/v1/keys/${id}`)).body.currentVersion, 201);
      const knex = knexFactory({
        client: kind === 'postgresql' ? 'pg' : 'mysql2',
        connection: { ...connectionOf(db.url), user: db.user, password: db.password },
      });
      const rows = await knex('svc_key_events').where({ key_id: id }).orderBy('seq').select('type', 'payload');
      await knex.destroy();
      const versions = [
        1,
        ...rows.filter((r: any) => r.type === 'Rotated').map((r: any) => JSON.parse(r.payload).newVersion),
      ];
      t.same(
        versions,
        Array.from({ length: 201 }, (_, i) => i + 1),
        'the journal holds versions 1..201 once each, in order',
      );
      const enc = await b.api.post(`/v1/keys/${id}/encrypt`, { plaintextBase64: b64('after the storm') });
      t.equal(enc.body.keyVersion, 201);
      t.equal(
        (await a.api.post(`/v1/keys/${id}/decrypt`, { ciphertextBase64: enc.body.ciphertextBase64 })).body
          .plaintextBase64,
        b64('after the storm'),
      );
    });

    t.test('after a compromise on node A the very next sign on node B is refused', async (t) => {
      const id = await a.api.key({ algorithm: 'EdDSA' });
      t.equal(
        (await b.api.post(`/v1/keys/${id}/sign`, { messageBase64: b64('m') })).status,
        200,
        'B has the key cached',
      );
      t.equal((await a.api.post(`/v1/keys/${id}/compromise`, { reason: 'stolen' })).status, 200);
      const refused = await b.api.post(`/v1/keys/${id}/sign`, { messageBase64: b64('m') });
      t.equal(refused.status, 409);
      t.match(refused.body.message, /Compromised/);
    });

    t.test('a revoke or rotation on one node is seen by the other before its next use', async (t) => {
      const id = await a.api.key({ algorithm: 'AES' });
      await b.api.post(`/v1/keys/${id}/encrypt`, { plaintextBase64: b64('x') });
      await a.api.post(`/v1/keys/${id}/rotate`, {});
      t.equal((await b.api.post(`/v1/keys/${id}/encrypt`, { plaintextBase64: b64('x') })).body.keyVersion, 2);
      await b.api.post(`/v1/keys/${id}/revoke`, {});
      t.equal((await a.api.post(`/v1/keys/${id}/encrypt`, { plaintextBase64: b64('x') })).status, 409);
    });

    t.test('both nodes read one audit trail', async (t) => {
      const id = await a.api.key({ algorithm: 'AES' });
      await b.api.post(`/v1/keys/${id}/encrypt`, { plaintextBase64: b64('x') });
      const rows = await a.api.auditOf(id);
      t.same(
        rows.map((r) => r.operation),
        ['Create', 'Activate', 'Encrypt'],
      );
    });
  });
}

function connectionOf(url: string) {
  const u = new URL(url.replace(/^jdbc:/, '').replace(/^(postgresql|mysql):/, 'db:'));
  return { host: u.hostname, port: Number(u.port), database: u.pathname.slice(1) };
}
