import { createHash, createPublicKey, randomBytes, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { journalPort, type KeyJournal } from '../../kernel/ports/journal.ts';
import { ApiClient } from '../helpers/client.ts';
import { importBody, importParameters, secret } from '../helpers/byok.ts';
import { freshDatabase } from '../helpers/databases.ts';
import { spawnService, type ServiceProcess } from '../helpers/process.ts';
import { ManualClock, startTestService, tempDir } from '../helpers/service.ts';

const AES = { algorithm: 'AES', sizeBits: 256 };
const modulusOf = (pem: string) => Buffer.from(createPublicKey(pem).export({ format: 'jwk' }).n!, 'base64url');

t.test(
  'SQLite: an import token survives a restart, is spent once across ' +
    'restarts, and the data directory holds neither it nor the wrapping private key',
  async (t) => {
    const dir = tempDir();
    const env = { SVC_JOURNAL_KIND: 'rdb-embedded' };
    let svc = await startTestService(env, { dir });
    const unused = await importParameters(svc.client(), AES);
    const spent = await importParameters(svc.client(), AES);
    t.equal(
      (await svc.client().post('/v1/keys/import', importBody(AES, spent, secret(32)))).status,
      201,
      'spent before the restart',
    );
    await svc.stop();

    // Someone with a copy of the data directory: the token is stored only as a hash, and the wrapping
    // private key only sealed (its modulus, part of any plain private key encoding, appears nowhere).
    const files = readdirSync(dir).map((f) => readFileSync(path.join(dir, f)));
    for (const [label, needle] of [
      ['import token', Buffer.from(unused.importToken)],
      ['wrapping key modulus', modulusOf(unused.wrappingPublicKeyPem)],
    ] as const) {
      t.notOk(
        files.some((bytes) => bytes.includes(needle)),
        `no file of the data directory holds the ${label}`,
      );
    }

    svc = await startTestService(env, { dir });
    const api = svc.client();
    t.equal(
      (await api.post('/v1/keys/import', importBody(AES, spent, secret(32)))).status,
      400,
      'a token spent before the restart stays spent',
    );
    t.equal(
      (await api.post('/v1/keys/import', importBody(AES, unused, secret(32)))).status,
      201,
      'one issued before the restart works after it',
    );
    await svc.stop();
    svc = await startTestService(env, { dir });
    const again = await svc.client().post('/v1/keys/import', importBody(AES, unused, secret(32)));
    t.equal(again.status, 400, 'and is spent for good');
    t.match(again.body.message, /already used/);
    await svc.stop();
  },
);

async function node(env: Record<string, string>): Promise<{ api: ApiClient; proc: ServiceProcess }> {
  const proc = spawnService({ SVC_HTTP_HOST: '127.0.0.1', SVC_HTTP_PORT: '0', ...env });
  const port = await proc.listening;
  return { api: new ApiClient(`http://127.0.0.1:${port}`, { 'X-Svc-User': 'ops' }), proc };
}

async function stop(n: { proc: ServiceProcess }): Promise<void> {
  n.proc.child.kill('SIGTERM');
  await n.proc.exited;
}

t.test('PostgreSQL, two nodes: a token from one node is spent on the other, once, also across a restart', async (t) => {
  const db = await freshDatabase(t, 'postgresql');
  if (!db) return;
  const a = await node(db.env);
  let b = await node(db.env);
  t.teardown(() => {
    a.proc.child.kill('SIGTERM');
    b.proc.child.kill('SIGTERM');
  });
  const params = await importParameters(a.api, AES);
  const imported = await b.api.post('/v1/keys/import', importBody(AES, params, secret(32)));
  t.equal(imported.status, 201, 'parameters from node A, import on node B');
  t.equal((await a.api.get(`/v1/keys/${imported.body.id}`)).body.origin, 'imported');
  t.equal(
    (await a.api.post('/v1/keys/import', importBody(AES, params, secret(32)))).status,
    400,
    'the token is spent on node A too',
  );

  const raced = await importParameters(a.api, AES);
  const results = await Promise.all(
    Array.from({ length: 8 }, (_, i) =>
      (i % 2 ? a : b).api.post('/v1/keys/import', importBody(AES, raced, secret(32))),
    ),
  );
  t.same(
    results.map((r) => r.status).sort(),
    [201, 400, 400, 400, 400, 400, 400, 400],
    'of 8 concurrent imports over both nodes with one token exactly one wins',
  );

  const kept = await importParameters(b.api, AES);
  await stop(b);
  b = await node(db.env);
  t.equal(
    (await b.api.post('/v1/keys/import', importBody(AES, kept, secret(32)))).status,
    201,
    'a token survives the restart of the node that issued it',
  );
  t.equal(
    (await a.api.post('/v1/keys/import', importBody(AES, kept, secret(32)))).status,
    400,
    'and is then spent everywhere',
  );
  t.equal(
    (await b.api.post('/v1/keys/import', importBody(AES, params, secret(32)))).status,
    400,
    'a token spent before the restart stays spent',
  );
});

t.test('a caller holding 100 unspent import tokens is refused more (429) until it spends one', async (t) => {
  const svc = await startTestService();
  t.teardown(() => svc.stop());
  const journal = svc.kernel.container.resolve<KeyJournal>(journalPort.id);
  const now = new Date();
  // 99 tokens stored as if issued earlier (each real issue costs an RSA-3072 key generation), then one real one.
  for (let i = 0; i < 99; i++) {
    await journal.putImportToken(
      {
        tokenHash: createHash('sha256').update(randomBytes(32)).digest('hex'),
        importId: randomUUID(),
        issuedTo: 'hoarder',
        keyType: 'AES/256',
        createdAt: now.toISOString(),
        expiresAt: new Date(now.getTime() + 3_600_000).toISOString(),
        sealingKey: { kekId: 'k', blob: randomBytes(60) },
        privateKey: randomBytes(100),
      },
      100,
    );
  }
  const hoarder = svc.client('hoarder');
  const last = await importParameters(hoarder, AES);
  const refused = await hoarder.post('/v1/keys/import-parameters', AES);
  t.equal(refused.status, 429);
  t.equal(refused.body.error, 'TooManyRequests');
  t.match(refused.body.message, /already holds 100 unspent import tokens/);
  t.ok(Number(refused.headers.get('retry-after')) > 0, 'with Retry-After');
  t.equal(
    (await svc.client('someone-else').post('/v1/keys/import-parameters', AES)).status,
    200,
    'other callers are not affected',
  );
  t.equal((await hoarder.post('/v1/keys/import', importBody(AES, last, secret(32)))).status, 201);
  t.equal((await hoarder.post('/v1/keys/import-parameters', AES)).status, 200, 'a spent token frees its place');
});

t.test("import parameters take 50 calls of the caller's rate limit: each generates an RSA-3072 key", async (t) => {
  const svc = await startTestService({ SVC_RATE_LIMIT_RPS: '1', SVC_RATE_LIMIT_BURST: '60' });
  t.teardown(() => svc.stop());
  const dana = svc.client('dana');
  await importParameters(dana, AES);
  const over = await dana.post('/v1/keys/import-parameters', AES);
  t.equal(over.status, 429, 'a second request does not fit in the 10 calls left of a burst of 60');
  t.match(
    over.body.message,
    /dana is over its rate limit of 1 requests per second \(burst 60\) \(this call counts as 50 calls\)/,
  );
  t.equal((await dana.get('/v1/keys')).status, 200, 'a call of one unit does');
});

t.test('an import token is accepted until 24 hours after issue, then refused as expired', async (t) => {
  const clock = new ManualClock(new Date('2026-03-01T00:00:00.000Z'));
  const svc = await startTestService({}, { clock });
  t.teardown(() => svc.stop());
  const api = svc.client();
  const early = await importParameters(api, AES);
  const late = await importParameters(api, AES);
  t.equal(early.expiresAt, '2026-03-02T00:00:00.000Z', 'expiresAt is 24 hours after issue');
  clock.advance(24 * 3_600_000 - 1);
  t.equal(
    (await api.post('/v1/keys/import', importBody(AES, early, secret(32)))).status,
    201,
    'accepted a millisecond before',
  );
  clock.advance(1);
  const expired = await api.post('/v1/keys/import', importBody(AES, late, secret(32)));
  t.equal(expired.status, 400, 'refused at expiresAt');
  t.match(expired.body, { error: 'InvalidField', message: /unknown, expired, already used/ });
});
