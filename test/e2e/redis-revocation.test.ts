import { randomUUID } from 'node:crypto';
import t from 'tap';
import { ApiClient } from '../helpers/client.ts';
import { freshDatabase } from '../helpers/databases.ts';
import { privateRedis } from '../helpers/private-redis.ts';
import { spawnService } from '../helpers/process.ts';
import { startTestService, tempDir } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

const redis = await privateRedis(t);
if (redis) {
  const env = {
    SVC_AUTH_KIND: 'hmac',
    SVC_AUTH_HMAC_SECRET: TEST_SECRET,
    SVC_REVOCATION_KIND: 'kv-store',
    SVC_REVOCATION_KV_URI: redis.url,
  };
  const jti = 'c0ffee00-1111-4222-8333-444455556666';
  const admin = await mintToken({ sub: 'alice' });
  const victim = await mintToken({ sub: 'bob' }, { jti });
  const as = (url: string, token: string) => new ApiClient(url, { Authorization: `Bearer ${token}` });

  t.test('a revoked jti is refused across a restart and on a second node', async (t) => {
    const dir = tempDir();
    const first = await startTestService(env, { dir });
    t.equal((await as(first.url, victim).get('/healthz')).status, 200);
    t.same((await as(first.url, admin).post('/v1/tokens/revoke', { jti })).body, { jti, revoked: true });
    const second = await startTestService(env);
    const onSecond = await as(second.url, victim).post('/v1/keys', {
      spec: { name: `x-${randomUUID()}`, algorithm: 'AES' },
    });
    t.equal(onSecond.status, 401);
    t.equal(onSecond.body.message, `token ${jti} has been revoked`);
    await first.stop();
    const restarted = await startTestService(env, { dir });
    t.equal(
      (await as(restarted.url, victim).post('/v1/keys', { spec: { name: `x-${randomUUID()}`, algorithm: 'AES' } }))
        .status,
      401,
      'still refused after a restart',
    );
    t.equal(
      (await as(restarted.url, admin).post('/v1/keys', { spec: { name: `x-${randomUUID()}`, algorithm: 'AES' } }))
        .status,
      201,
      'others unaffected',
    );
    await restarted.stop();
    await second.stop();
  });

  t.test(
    "revocation cascades across nodes: a parent's token revoked on one node stops its agents on the other",
    async (t) => {
      // Two nodes of one deployment share the journal (and so the agent registry) as well as the list.
      const db = await freshDatabase(t, 'postgresql');
      if (!db) return;
      const a = await startTestService({ ...env, ...db.env });
      const b = await startTestService({ ...env, ...db.env });
      t.teardown(async () => {
        await a.stop();
        await b.stop();
      });
      const parentJti = 'feed0000-1111-4222-8333-444455556666';
      const parent = await mintToken({ sub: 'dana' }, { jti: parentJti, ttlSeconds: 3600 });
      const first = (
        await as(a.url, parent).post('/v1/agents/issue', { label: 'one', scopes: ['Create'], ttlSeconds: 600 })
      ).body;
      const second = (
        await as(a.url, parent).post('/v1/agents/issue', { label: 'two', scopes: ['Create'], ttlSeconds: 600 })
      ).body;
      const create = (url: string, jwt: string) =>
        as(url, jwt).post('/v1/keys', { spec: { name: `x-${randomUUID()}`, algorithm: 'AES' } });
      t.equal((await create(b.url, first.jwt)).status, 201, 'an agent issued on node A works on node B');
      t.equal(
        (await as(a.url, parent).post(`/v1/agents/${first.agentId}/revoke`)).status,
        200,
        'the kill switch on node A',
      );
      t.equal((await create(b.url, first.jwt)).status, 401, '... stops the agent on node B');
      t.equal((await create(a.url, second.jwt)).status, 201);
      t.equal(
        (await as(b.url, admin).post('/v1/tokens/revoke', { jti: parentJti })).status,
        200,
        "the parent's token revoked on node B",
      );
      const refused = await create(a.url, second.jwt);
      t.equal(refused.status, 401, '... stops its other agent on node A');
      t.match(
        refused.body.message,
        /the token that issued agent|of agent .* was revoked at/,
        'by the list or by the registry, whichever the node reads first',
      );
      t.equal((await create(a.url, admin)).status, 201, 'others unaffected');
    },
  );

  t.test(
    'with Redis stopped, calls still pass (fail open) and a warning is logged; revoking answers 503',
    async (t) => {
      const svc = await startTestService(env);
      t.teardown(() => svc.stop());
      await redis.stop();
      const res = await as(svc.url, admin).post('/v1/keys', { spec: { name: `x-${randomUUID()}`, algorithm: 'AES' } });
      t.equal(res.status, 201);
      t.match(
        svc.logs.join('\n'),
        /"level":"warn","msg":"revocation store unreachable; token treated as not revoked \(fail open\)"/,
      );
      const revoke = await as(svc.url, admin).post('/v1/tokens/revoke', { jti: 'another' });
      t.equal(revoke.status, 503);
      t.equal(revoke.body.error, 'ServiceUnavailable');
      await redis.start();
    },
  );

  t.test(
    'preflight: the in-memory list with bearer tokens on a reachable bind ' +
      'is a finding that advises Redis; kv-store is not',
    async (t) => {
      const tokens = {
        SVC_HTTP_HOST: '0.0.0.0',
        SVC_HTTP_PORT: '0',
        SVC_HTTP_TLS_TERMINATED_UPSTREAM: 'true',
        SVC_AUTH_KIND: 'hmac',
        SVC_AUTH_HMAC_SECRET: TEST_SECRET,
      };
      const inMemory = spawnService(tokens);
      t.teardown(() => inMemory.child.kill('SIGKILL'));
      await inMemory.listening;
      t.match(
        inMemory.stderr(),
        /\[WARN\] revocation\.kind: revocation\.kind is in-memory: a revoked token is accepted again after a restart, and on every other node, until it expires\n\s+risk\/advice: set SVC_REVOCATION_KIND=kv-store/,
      );
      const shared = spawnService({ ...tokens, SVC_REVOCATION_KIND: 'kv-store', SVC_REVOCATION_KV_URI: redis.url });
      t.teardown(() => shared.child.kill('SIGKILL'));
      await shared.listening;
      t.notMatch(shared.stderr(), /revocation\.kind/, 'a shared, persistent list: no finding');
      const loopback = spawnService({ ...tokens, SVC_HTTP_HOST: '127.0.0.1' });
      t.teardown(() => loopback.child.kill('SIGKILL'));
      await loopback.listening;
      t.notMatch(loopback.stderr(), /\[WARN\] revocation\.kind/, 'nor on a loopback bind');
    },
  );
}
