import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import t from 'tap';
import { startTestService } from '../helpers/service.ts';
import { until } from '../helpers/until.ts';

/**
 * JWTs signed by keys in the service and verified by jose against the deployment's public JWKS
 * (/.well-known/jwks.json, keys tagged jwks=public) and each key's own JWKS: ES256, ES384, EdDSA, PS256
 * and RS256; ECDSA in JOSE form. A key untagged or disabled leaves the public set within one cache period.
 */

const publicSet = async (url: string) => {
  const res = await fetch(`${url}/.well-known/jwks.json`);
  if (res.status !== 200) throw new Error(`jwks.json: ${res.status}`);
  return (await res.json()) as { keys: Array<{ kid: string }> };
};

t.test('sign-jwt and the JWKS', async (t) => {
  const svc = await startTestService({ SVC_JWKS_CACHE_SECONDS: '1' });
  t.teardown(() => svc.stop());
  const api = svc.client('alice');
  const published = { jwks: 'public' };
  const cases: Array<[Record<string, unknown>, string | undefined, string]> = [
    [{ algorithm: 'EC', curve: 'P-256' }, undefined, 'ES256'],
    [{ algorithm: 'EC', curve: 'P-384' }, undefined, 'ES384'],
    [{ algorithm: 'EdDSA', curve: 'Ed25519' }, undefined, 'EdDSA'],
    [{ algorithm: 'RSA', sizeBits: 2048 }, undefined, 'PS256'],
    [{ algorithm: 'RSA', sizeBits: 2048 }, 'RS256', 'RS256'],
  ];
  const tokens: Array<{ jwt: string; alg: string; id: string }> = [];
  for (const [spec, alg, expected] of cases) {
    const id = await api.key({ ...spec, tags: published });
    const signed = await api.post(`/v1/keys/${id}/sign-jwt`, {
      header: alg ? { alg } : {},
      payload: { sub: 'user-1', aud: 'svc-test', iat: Math.floor(Date.now() / 1000) },
    });
    t.equal(signed.status, 200, JSON.stringify(signed.body));
    t.match(signed.body, { alg: expected, kid: `${id}:1`, keyVersion: 1 });
    t.match(decodeProtectedHeader(signed.body.jwt), { alg: expected, kid: `${id}:1`, typ: 'JWT' });
    tokens.push({ jwt: signed.body.jwt, alg: expected, id });
  }
  const set = createLocalJWKSet(await publicSet(svc.url));
  for (const { jwt, alg, id } of tokens) {
    const verified = await jwtVerify(jwt, set, { audience: 'svc-test' });
    t.equal(verified.payload.sub, 'user-1', `${alg}: jose verifies it against /.well-known/jwks.json`);
    const own = createLocalJWKSet((await api.get(`/v1/keys/${id}/jwks`)).body);
    t.ok(await jwtVerify(jwt, own), `${alg}: and against the key's own JWKS`);
  }

  t.test('a rotated key lists both versions; a token of either verifies', async (t) => {
    const { id, jwt } = tokens[0]!;
    t.equal((await api.post(`/v1/keys/${id}/rotate`, {})).status, 200);
    const after = (await api.post(`/v1/keys/${id}/sign-jwt`, { payload: { n: 2 } })).body;
    t.equal(after.kid, `${id}:2`);
    const own = (await api.get(`/v1/keys/${id}/jwks`)).body;
    t.same(
      own.keys.map((k: { kid: string }) => k.kid),
      [`${id}:2`, `${id}:1`],
    );
    const set = createLocalJWKSet(own);
    t.ok(await jwtVerify(jwt, set, { audience: 'svc-test' }), 'the token of version 1');
    t.ok(await jwtVerify(after.jwt, set), 'the token of version 2');
  });

  t.test('a tampered token does not verify', async (t) => {
    const { jwt } = tokens[2]!;
    const [h, , s] = jwt.split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify({ sub: 'admin', aud: 'svc-test' })).toString('base64url')}.${s}`;
    await t.rejects(jwtVerify(forged, createLocalJWKSet(await publicSet(svc.url))));
  });

  t.test('untagged or disabled keys leave the public set within one cache period', async (t) => {
    const [a, b] = [tokens[3]!.id, tokens[4]!.id];
    t.equal((await api.call('DELETE', `/v1/keys/${a}/tags?keys=jwks`)).status, 200);
    t.equal((await api.post(`/v1/keys/${b}/disable`, { reason: 'rotating out' })).status, 200);
    await until(async () => {
      const kids = (await publicSet(svc.url)).keys.map((k) => k.kid.split(':')[0]);
      return !kids.includes(a) && !kids.includes(b);
    }, 'the untagged and the disabled key to leave /.well-known/jwks.json');
    t.ok((await publicSet(svc.url)).keys.length > 0, 'the others stay');
  });

  t.test('refusals: a symmetric key, an alg that does not fit the curve, anonymous sign-jwt', async (t) => {
    const aes = await api.key({ algorithm: 'AES' });
    t.match((await api.get(`/v1/keys/${aes}/jwks`)).body, { error: 'IllegalOperation' });
    t.match((await api.post(`/v1/keys/${aes}/sign-jwt`, { payload: {} })).body, { error: 'InvalidField' });
    t.match((await api.post(`/v1/keys/${tokens[0]!.id}/sign-jwt`, { header: { alg: 'ES384' }, payload: {} })).body, {
      error: 'InvalidField',
      message: /does not fit a P-256 key/,
    });
    t.match((await api.post(`/v1/keys/${tokens[0]!.id}/sign-jwt`, { header: { alg: 'none' }, payload: {} })).body, {
      error: 'InvalidField',
    });
    const anonymous = await fetch(`${svc.url}/v1/keys/${tokens[0]!.id}/sign-jwt`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"payload":{}}',
    });
    t.equal(anonymous.status, 401);
    t.equal((await fetch(`${svc.url}/.well-known/jwks.json`, { method: 'POST' })).status, 404);
  });
});
