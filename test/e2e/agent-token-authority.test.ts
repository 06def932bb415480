import { decodeJwt, SignJWT } from 'jose';
import t from 'tap';
import { ApiClient, b64 } from '../helpers/client.ts';
import { AUDIENCE, issuerKey, TestIssuer } from '../helpers/oidc-issuer.ts';
import { ManualClock, startTestService } from '../helpers/service.ts';
import { TEST_SECRET } from '../helpers/tokens.ts';

// In oidc mode the agent secret signs the service's own agent tokens. Whoever holds it could re-mint a
// live agent's token with any svc_groups and svc_ops, a fresh expiry and no parent jti: the registry row
// must be the only authority, so such a token gains nothing.
const rsa = await issuerKey('rsa-1', 'RS256');
const issuer = new TestIssuer([rsa]);
await issuer.start();
t.teardown(() => issuer.stop());
const bindings = {
  readers: ['Get', 'Encrypt', 'Create', 'Activate', 'Revoke'],
  admins: ['Create', 'Get', 'Activate', 'Encrypt', 'Decrypt', 'Destroy', 'Revoke', 'Compromise', 'Query', 'Locate'],
};
const clock = new ManualClock(new Date());
const svc = await startTestService(
  {
    SVC_AUTH_KIND: 'oidc',
    SVC_AUTH_OIDC_ISSUER_URI: issuer.url,
    SVC_AUTH_OIDC_AUDIENCE: AUDIENCE,
    SVC_AUTH_HMAC_SECRET: TEST_SECRET,
    SVC_POLICY_KIND: 'role-based',
    SVC_POLICY_ROLE_BINDINGS: JSON.stringify(bindings),
  },
  { clock },
);
t.teardown(() => svc.stop());
const as = (token: string) => new ApiClient(svc.url, { Authorization: `Bearer ${token}` });
const human = async (sub: string, groups: string[], jti: string) =>
  as(
    await issuer.forge(
      rsa,
      { sub, svc_kind: 'human', svc_groups: groups, jti },
      { exp: Math.floor(Date.now() / 1000) + 3600 },
    ),
  );
const admin = await human('root', ['admins'], 'root-jti');

/** The agent's token as someone holding the agent secret mints it again, keeping only its identity. */
async function reMint(jwt: string, claims: Record<string, unknown>): Promise<string> {
  const { sub, jti, svc_parent } = decodeJwt(jwt);
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ svc_kind: 'agent', svc_parent, svc_purpose: 'anything', ...claims })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer('svc-kms')
    .setAudience('svc-kms')
    .setSubject(sub!)
    .setJti(jti!)
    .setIssuedAt(now)
    .setExpirationTime(now + 86_000)
    .sign(new TextEncoder().encode(TEST_SECRET));
}

t.test(
  'a re-minted token with every operation and the admins group acts only ' +
    'with the scopes and groups the registry recorded',
  async (t) => {
    const alice = await human('alice', ['readers'], 'alice-jti-1');
    const key = await alice.key({ name: 'alice-data', algorithm: 'AES' });
    const issued = await alice.post('/v1/agents/issue', { label: 'encryptor', scopes: ['Encrypt'], ttlSeconds: 600 });
    t.equal(issued.status, 200);
    const forged = as(
      await reMint(issued.body.jwt, {
        svc_ops: ['Encrypt', 'Decrypt', 'Destroy', 'Compromise', 'Create', 'Query'],
        svc_groups: ['admins'],
      }),
    );
    const sealed = await forged.post(`/v1/keys/${key}/encrypt`, { plaintextBase64: b64('x') });
    t.equal(sealed.status, 200, 'the recorded scope works: the token still proves who the agent is');
    t.equal(
      (await forged.post(`/v1/keys/${key}/decrypt`, { ciphertextBase64: sealed.body.ciphertextBase64 })).status,
      403,
      'Decrypt, claimed but never issued: 403',
    );
    t.equal((await forged.post(`/v1/keys/${key}/compromise`, { reason: 'x' })).status, 403, 'Compromise: 403');
    t.equal((await forged.post('/v1/keys', { spec: { name: 'forged', algorithm: 'AES' } })).status, 403, 'Create: 403');
    const refusals = (await admin.get(`/v1/audit?actor=${issued.body.agentId}&limit=20`)).body.records.filter(
      (r: any) => r.outcome === 'PermissionDenied',
    );
    t.same(
      refusals.map((r: any) => r.operation).sort(),
      ['Compromise', 'Create', 'Decrypt'],
      'each refusal is audited as the agent',
    );
    t.equal((await admin.post(`/v1/keys/${key}/revoke`, {})).status, 200);
  },
);

t.test("a re-minted token dies at the registry's expiry, whatever its exp says", async (t) => {
  const alice = await human('alice', ['readers'], 'alice-jti-2');
  const key = await alice.key({ name: 'alice-expiry', algorithm: 'AES' });
  // Issued while the service's clock read an hour ago, for 30 minutes: the registry's expiry has passed.
  clock.advance(-3_600_000);
  const issued = await alice.post('/v1/agents/issue', { label: 'short-lived', scopes: ['Encrypt'], ttlSeconds: 1800 });
  clock.advance(3_600_000);
  t.equal(issued.status, 200);
  const forged = as(await reMint(issued.body.jwt, { svc_ops: ['Encrypt'], svc_groups: ['readers'] }));
  const refused = await forged.post(`/v1/keys/${key}/encrypt`, { plaintextBase64: b64('x') });
  t.equal(refused.status, 401);
  t.match(
    refused.body.message,
    new RegExp(`token ${issued.body.jti} of agent ${issued.body.agentId} expired at ${issued.body.expiresAt}`),
  );
});

t.test("the parent's token revocation stops a re-minted token that leaves out svc_parent_jti", async (t) => {
  const bob = await human('bob', ['readers'], 'bob-jti-1');
  const key = await bob.key({ name: 'bob-data', algorithm: 'AES' });
  const issued = await bob.post('/v1/agents/issue', { label: 'bot', scopes: ['Encrypt'], ttlSeconds: 600 });
  const forged = as(await reMint(issued.body.jwt, { svc_ops: ['Encrypt'] }));
  t.equal((await forged.post(`/v1/keys/${key}/encrypt`, { plaintextBase64: b64('x') })).status, 200);
  t.equal((await admin.post('/v1/tokens/revoke', { jti: 'bob-jti-1' })).status, 200);
  const refused = await forged.post(`/v1/keys/${key}/encrypt`, { plaintextBase64: b64('x') });
  t.equal(refused.status, 401);
  // Revoking the parent's token revokes, in the registry, every agent issued under it.
  t.match(refused.body.message, new RegExp(`token ${issued.body.jti} of agent ${issued.body.agentId} was revoked at`));
});

t.test(
  'a revoked agent token is refused with a message naming its jti, through the kill switch and through its jti alike',
  async (t) => {
    const carol = await human('carol', ['readers'], 'carol-jti-1');
    const key = await carol.key({ name: 'carol-data', algorithm: 'AES' });
    for (const how of ['kill switch', 'token revoke'] as const) {
      const issued = (await carol.post('/v1/agents/issue', { label: how, scopes: ['Encrypt'], ttlSeconds: 600 })).body;
      const bot = as(issued.jwt);
      t.equal((await bot.post(`/v1/keys/${key}/encrypt`, { plaintextBase64: b64('x') })).status, 200);
      const revoked =
        how === 'kill switch'
          ? await carol.post(`/v1/agents/${issued.agentId}/revoke`)
          : await carol.post('/v1/tokens/revoke', { jti: issued.jti });
      t.equal(revoked.status, 200, `${how}: revoked`);
      const refused = await bot.post(`/v1/keys/${key}/encrypt`, { plaintextBase64: b64('x') });
      t.equal(refused.status, 401, `${how}: 401`);
      t.ok(refused.body.message.includes(issued.jti), `${how}: the message names the jti (${refused.body.message})`);
      t.ok(refused.body.message.includes(issued.agentId), `${how}: and the agent`);
    }
  },
);
