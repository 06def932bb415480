import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import t from 'tap';
import { ApiClient } from '../helpers/client.ts';
import { AUDIENCE, issuerKey, TestIssuer } from '../helpers/oidc-issuer.ts';
import { spawnService } from '../helpers/process.ts';
import { startTestService } from '../helpers/service.ts';
import { TEST_SECRET, unsignedToken } from '../helpers/tokens.ts';

const rsa1 = await issuerKey('rsa-1', 'RS256');
const ec1 = await issuerKey('ec-1', 'ES256');
const issuer = new TestIssuer([rsa1, ec1]);
await issuer.start();
t.teardown(() => issuer.stop());

const svc = await startTestService({
  SVC_AUTH_KIND: 'oidc',
  SVC_AUTH_OIDC_ISSUER_URI: issuer.url,
  SVC_AUTH_OIDC_AUDIENCE: AUDIENCE,
  SVC_AUTH_OIDC_JWKS_REFRESH_COOLDOWN_SECONDS: '0',
  SVC_AUTH_HMAC_SECRET: TEST_SECRET,
});
t.teardown(() => svc.stop());
const as = (token: string) => new ApiClient(svc.url, { Authorization: `Bearer ${token}` });
const create = (token: string) =>
  as(token).post('/v1/keys', { spec: { name: `oidc-${randomUUID()}`, algorithm: 'AES' } });

t.test('client-credentials tokens signed RS256 and ES256 are accepted as Service principals', async (t) => {
  for (const client of ['rs-client', 'es-client'] as const) {
    const res = await create(await issuer.token(client));
    t.equal(res.status, 201, client);
  }
  const id = (await create(await issuer.token('rs-client'))).body.id;
  const human = as(await issuer.forge(rsa1, { sub: 'alice' }));
  t.match((await human.auditOf(id))[0].principal, { subject: 'rs-client', kind: 'Service' });
});

t.test(
  'wrong iss, wrong aud, expired, not yet valid, issued in the future, ' +
    'alg none, HS256 with the public key, unknown key: all 401',
  async (t) => {
    const now = Math.floor(Date.now() / 1000);
    const stranger = await issuerKey('stranger', 'RS256');
    const publicPem = JSON.stringify({ kty: rsa1.jwk.kty, n: rsa1.jwk.n, e: rsa1.jwk.e });
    const cases: Record<string, string> = {
      'wrong iss': await issuer.forge(rsa1, { iss: 'http://evil.example' }),
      'wrong aud': await issuer.forge(rsa1, { aud: 'urn:another-service' }),
      expired: await issuer.forge(rsa1, {}, { iat: now - 3600, exp: now - 600 }),
      'not yet valid': await issuer.forge(rsa1, {}, { nbf: now + 600 }),
      'issued in the future': await issuer.forge(rsa1, {}, { iat: now + 3600, exp: now + 7200 }),
      'alg none': unsignedToken({ iss: issuer.url, aud: AUDIENCE, sub: 'x' }),
      'HS256 forged with the public key': await new SignJWT({ iss: issuer.url, aud: AUDIENCE, sub: 'x' })
        .setProtectedHeader({ alg: 'HS256', kid: 'rsa-1' })
        .setExpirationTime(now + 300)
        .sign(new TextEncoder().encode(publicPem)),
      'unknown key': await issuer.forge(stranger, {}),
    };
    for (const [name, token] of Object.entries(cases)) {
      const res = await create(token);
      t.equal(res.status, 401, name);
      t.equal(res.body.error, 'Unauthorized', name);
    }
  },
);

t.test('after the issuer rotates its signing key, new tokens are accepted without a restart', async (t) => {
  const rsa2 = await issuerKey('rsa-2', 'RS256');
  await issuer.restart([rsa2, rsa1, ec1]);
  const token = await issuer.token('rs-client');
  t.match(JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()), { kid: 'rsa-2' });
  t.equal((await create(token)).status, 201);
});

t.test("the service's own agent tokens are accepted in oidc mode", async (t) => {
  const human = as(await issuer.forge(rsa1, { sub: 'alice', svc_kind: 'human' }));
  const issued = await human.post('/v1/agents/issue', { label: 'bot', scopes: ['Create', 'Get'], ttlSeconds: 300 });
  t.equal(issued.status, 200);
  t.equal((await create(issued.body.jwt)).status, 201);
});

t.test('the agent secret signs agents only; the issuer cannot mint agents', async (t) => {
  const now = Math.floor(Date.now() / 1000);
  const hs = (claims: Record<string, unknown>) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('svc-kms')
      .setAudience('svc-kms')
      .setSubject('mallory')
      .setJti('j-1')
      .setIssuedAt(now)
      .setExpirationTime(now + 300)
      .sign(new TextEncoder().encode(TEST_SECRET));
  const posingHuman = await create(await hs({ svc_kind: 'human' }));
  t.equal(posingHuman.status, 401, 'an HS256 token claiming a Human is refused');
  t.match(posingHuman.body.message, /HS256 tokens are accepted only as agent tokens/);
  t.equal((await create(await hs({}))).status, 401, 'so is one with no svc_kind (a Human by default)');
  const issuerAgent = await create(
    await issuer.forge(rsa1, {
      sub: 'agent-1',
      svc_kind: 'agent',
      svc_parent: 'alice',
      svc_ops: ['Create'],
      jti: 'j-2',
    }),
  );
  t.equal(issuerAgent.status, 401, "an issuer's token claiming an agent is refused");
  t.match(issuerAgent.body.message, /agent tokens must be HS256 tokens issued by this service/);
});

t.test(
  'the agent secret cannot mint an agent the registry never issued, nor ' +
    'give an issued one another parent; an agent expires with its parent',
  async (t) => {
    const now = Math.floor(Date.now() / 1000);
    const agentToken = (claims: { sub: string; jti: string; svc_parent: string }) =>
      new SignJWT({
        svc_kind: 'agent',
        svc_ops: ['Create', 'Get'],
        svc_groups: [],
        svc_purpose: 'minted',
        svc_parent: claims.svc_parent,
      })
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuer('svc-kms')
        .setAudience('svc-kms')
        .setSubject(claims.sub)
        .setJti(claims.jti)
        .setIssuedAt(now)
        .setExpirationTime(now + 300)
        .sign(new TextEncoder().encode(TEST_SECRET));
    const minted = await create(
      await agentToken({ sub: 'agent-00000000-0000-4000-8000-00000000c0de', jti: 'minted-1', svc_parent: 'ceo' }),
    );
    t.equal(minted.status, 401, 'an agent for a parent the registry never issued one to is refused');
    t.match(minted.body.message, /is not in the agent registry/);

    const alice = as(await issuer.forge(rsa1, { sub: 'alice', svc_kind: 'human' }, { exp: now + 120 }));
    const issued = (await alice.post('/v1/agents/issue', { label: 'bot', scopes: ['Create', 'Get'], ttlSeconds: 3600 }))
      .body;
    t.ok(
      Date.parse(issued.expiresAt) <= (now + 120) * 1000,
      `the agent expires with the token it was issued under (${issued.expiresAt}), not an hour later`,
    );
    t.equal(
      JSON.parse(Buffer.from(issued.jwt.split('.')[1], 'base64url').toString()).exp,
      now + 120,
      'and so does its token',
    );
    const reparented = await create(await agentToken({ sub: issued.agentId, jti: issued.jti, svc_parent: 'ceo' }));
    t.equal(reparented.status, 401, "an issued agent's id and jti under another parent are refused");
    t.equal((await create(issued.jwt)).status, 201, 'the issued token itself works');
  },
);

t.test('an unreachable issuer fails the boot in bounded time', async (t) => {
  const started = Date.now();
  const proc = spawnService({
    SVC_HTTP_HOST: '127.0.0.1',
    SVC_HTTP_PORT: '0',
    SVC_AUTH_KIND: 'oidc',
    SVC_AUTH_OIDC_ISSUER_URI: 'http://127.0.0.1:1',
    SVC_AUTH_OIDC_DISCOVERY_TIMEOUT_MS: '2000',
  });
  t.equal(await proc.exited, 1);
  t.ok(Date.now() - started < 20_000);
  t.match(proc.stderr(), /OIDC discovery at http:\/\/127\.0\.0\.1:1\/\.well-known\/openid-configuration failed/);
});
