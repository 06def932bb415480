import t from 'tap';
import { ApiClient, b64 } from '../helpers/client.ts';
import { freshDatabase } from '../helpers/databases.ts';
import { spawnService } from '../helpers/process.ts';

async function node(env: Record<string, string>): Promise<{ api: ApiClient; stop: () => void }> {
  const proc = spawnService({ SVC_HTTP_HOST: '127.0.0.1', SVC_HTTP_PORT: '0', ...env });
  const port = await proc.listening;
  return {
    api: new ApiClient(`http://127.0.0.1:${port}`, { 'X-Svc-User': 'ops' }),
    stop: () => proc.child.kill('SIGTERM'),
  };
}

t.test('batches on two nodes sharing PostgreSQL', async (t) => {
  const db = await freshDatabase(t, 'postgresql');
  if (!db) return;
  const a = await node(db.env);
  const b = await node(db.env);
  t.teardown(() => {
    a.stop();
    b.stop();
  });

  t.test("a batch on one node opens what the other node's batch sealed", async (t) => {
    const id = await a.api.key({ algorithm: 'AES' });
    const sealed = await a.api.post(`/v1/keys/${id}/encrypt`, {
      items: Array.from({ length: 50 }, (_, i) => ({ plaintextBase64: b64(`row ${i}`), context: { row: String(i) } })),
    });
    t.equal(sealed.status, 200);
    const opened = await b.api.post(`/v1/keys/${id}/decrypt`, {
      items: sealed.body.results.map((r: any, i: number) => ({
        ciphertextBase64: r.ciphertextBase64,
        context: { row: String(i) },
      })),
    });
    t.same(
      opened.body.results.map((r: any) => Buffer.from(r.plaintextBase64, 'base64').toString()),
      Array.from({ length: 50 }, (_, i) => `row ${i}`),
    );
  });

  t.test('a compromise on the other node stops the remaining items of a running batch', async (t) => {
    const id = await a.api.key({ algorithm: 'RSA', sizeBits: 2048 });
    const other = await a.api.key({ algorithm: 'AES' });
    t.equal((await a.api.post(`/v1/keys/${id}/sign`, { messageBase64: b64('warm') })).status, 200);
    let done = false;
    const batch = a.api
      .post(`/v1/keys/${id}/sign`, { items: Array.from({ length: 1000 }, (_, i) => ({ messageBase64: b64(`m${i}`) })) })
      .finally(() => (done = true));
    // Node A answers other calls while the batch runs: it has started, and pauses between items.
    for (let answered = 0; answered < 3; ) if ((await a.api.get(`/v1/keys/${other}`)).status === 200) answered++;
    t.notOk(done, 'the batch is still running');
    t.equal((await b.api.post(`/v1/keys/${id}/compromise`, { reason: 'leaked, seen on node B' })).status, 200);
    const signed = await batch;
    t.equal(signed.status, 200);
    const results = signed.body.results as any[];
    const firstRefused = results.findIndex((r) => r.error);
    t.ok(firstRefused > 0 && firstRefused < 1000, `items signed on A before B's compromise: ${firstRefused}`);
    t.ok(
      results.slice(firstRefused).every((r) => r.error === 'IllegalOperation'),
      "every later item is refused on A: it read B's change at its next pause",
    );
  });
});
