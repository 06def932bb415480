import t from 'tap';
import { ApiClient, b64 } from '../helpers/client.ts';
import { freshDatabase } from '../helpers/databases.ts';
import { spawnService, type ServiceProcess } from '../helpers/process.ts';
import { until } from '../helpers/until.ts';

async function node(env: Record<string, string>): Promise<{ api: ApiClient; proc: ServiceProcess }> {
  const proc = spawnService({ SVC_HTTP_HOST: '127.0.0.1', SVC_HTTP_PORT: '0', ...env });
  const port = await proc.listening;
  return { api: new ApiClient(`http://127.0.0.1:${port}`, { 'X-Svc-User': 'ops' }), proc };
}

t.test('two nodes on one PostgreSQL database with notified key changes', async (t) => {
  const db = await freshDatabase(t, 'postgresql');
  if (!db) return;
  const env = { ...db.env, SVC_JOURNAL_KEY_CHANGES: 'notified' };
  const a = await node(env);
  const b = await node(env);
  t.teardown(() => {
    a.proc.child.kill('SIGTERM');
    b.proc.child.kill('SIGTERM');
  });

  t.test('a compromise on node A is refused on node B once its notification arrives', async (t) => {
    const id = await a.api.key({ algorithm: 'EdDSA' });
    const sign = () => b.api.post(`/v1/keys/${id}/sign`, { messageBase64: b64('m') });
    t.equal((await sign()).status, 200, 'B has the key cached');
    t.equal((await a.api.post(`/v1/keys/${id}/compromise`, { reason: 'stolen' })).status, 200);
    let last = await sign();
    await until(async () => (last = await sign()).status !== 200, "B to hear of A's compromise");
    t.equal(last.status, 409);
    t.match(last.body.message, /Compromised/);
  });

  t.test('a rotation and a revoke on one node reach the other', async (t) => {
    const id = await a.api.key({ algorithm: 'AES' });
    const encryptOn = (n: typeof a) => n.api.post(`/v1/keys/${id}/encrypt`, { plaintextBase64: b64('x') });
    t.equal((await encryptOn(b)).body.keyVersion, 1);
    await a.api.post(`/v1/keys/${id}/rotate`, {});
    let onB = await encryptOn(b);
    await until(async () => (onB = await encryptOn(b)).body.keyVersion !== 1, 'B to hear of the rotation');
    t.equal(onB.body.keyVersion, 2, 'B encrypts under the new version');
    await b.api.post(`/v1/keys/${id}/revoke`, {});
    let onA = await encryptOn(a);
    await until(async () => (onA = await encryptOn(a)).status !== 200, 'A to hear of the revoke');
    t.equal(onA.status, 409, 'A refuses the revoked key');
  });
});
