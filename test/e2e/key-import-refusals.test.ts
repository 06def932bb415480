import { generateKeyPairSync, randomBytes } from 'node:crypto';
import path from 'node:path';
import t from 'tap';
import { Database } from '../../plugins/sql-support/sqlite-driver.ts';
import { ApiClient } from '../helpers/client.ts';
import { importBody, importParameters, pkcs8, secret } from '../helpers/byok.ts';
import { startTestService } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

// Every way an import is refused, on the real server with the SQLite journal (read back to show nothing was stored).
const svc = await startTestService({
  SVC_AUTH_KIND: 'hmac',
  SVC_AUTH_HMAC_SECRET: TEST_SECRET,
  SVC_JOURNAL_KIND: 'rdb-embedded',
});
t.teardown(() => svc.stop());
const as = async (claims: Record<string, unknown>) =>
  new ApiClient(svc.url, { Authorization: `Bearer ${await mintToken(claims, { ttlSeconds: 3600 })}` });
const alice = await as({ sub: 'alice' });
const bob = await as({ sub: 'bob' });

/** Rows of the journal's key tables: a refused import must add none. */
function keyRows(): number {
  const db = new Database(path.join(svc.dir, 'journal.db'), { readonly: true });
  try {
    return ['svc_key_events', 'svc_key_material', 'svc_key_kwk'].reduce(
      (n, table) => n + (db.prepare(`select count(*) n from ${table}`).get() as { n: number }).n,
      0,
    );
  } finally {
    db.close();
  }
}

t.test('import refusals: 400 InvalidField saying why, and nothing stored', async (t) => {
  const before = keyRows();
  const refused = async (body: unknown, why: RegExp, label: string, client = alice) => {
    const res = await client.post('/v1/keys/import', body);
    t.equal(res.status, 400, `${label}: 400`);
    t.equal(res.body.error, 'InvalidField', label);
    t.match(res.body.message, why, `${label}: says why`);
  };
  const aes = { algorithm: 'AES', sizeBits: 256 };
  const params = await importParameters(alice, aes);
  await refused(
    importBody(aes, { ...params, importToken: randomBytes(32).toString('base64url') }, secret(32)),
    /importToken is unknown, expired, already used/,
    'an unknown token',
  );
  await refused(
    { ...importBody(aes, params, secret(32)), wrappedMaterialBase64: 'not base64!' },
    /wrappedMaterialBase64 is not valid standard base64/,
    'wrapped material that is not base64',
  );
  await refused(importBody({ ...aes, name: '' }, params, secret(32)), /spec.name/, 'an invalid spec');
  await refused(importBody(aes, params, secret(32)), /issued to another caller/, "another caller's token", bob);
  t.equal(
    (await alice.post('/v1/keys/import', importBody(aes, params, secret(32)))).status,
    201,
    'none of those spent the token: its holder still imports with it',
  );
  await refused(importBody(aes, params, secret(32)), /already used/, 'the token a second time');

  const kinds: Array<[string, Record<string, unknown>, Record<string, unknown>, Buffer, RegExp]> = [
    [
      'a token for another size',
      { algorithm: 'AES', sizeBits: 128 },
      aes,
      secret(32),
      /issued for AES\/128 material; the spec asks for AES\/256/,
    ],
    [
      'a token for another algorithm',
      { algorithm: 'HMAC' },
      aes,
      secret(32),
      /issued for HMAC\/256 material; the spec asks for AES\/256/,
    ],
    ['AES material of the wrong length', aes, aes, secret(16), /it is 16 bytes; AES-256 material is 32 raw bytes/],
    [
      'HMAC material of the wrong length',
      { algorithm: 'HMAC', sizeBits: 384 },
      { algorithm: 'HMAC', sizeBits: 384 },
      secret(32),
      /it is 32 bytes; HMAC-384 material is 48 raw bytes/,
    ],
    [
      'an EC key on another curve',
      { algorithm: 'EC', curve: 'P-256' },
      { algorithm: 'EC', curve: 'P-256' },
      pkcs8('ec', { namedCurve: 'secp384r1' }),
      /EC key on P-384; the spec asks for P-256/,
    ],
    [
      'an RSA key of another size',
      { algorithm: 'RSA', sizeBits: 2048 },
      { algorithm: 'RSA', sizeBits: 2048 },
      pkcs8('rsa', { modulusLength: 3072 }),
      /RSA-3072 key; the spec asks for RSA-2048/,
    ],
    [
      'an RSA key with exponent 3',
      { algorithm: 'RSA', sizeBits: 2048 },
      { algorithm: 'RSA', sizeBits: 2048 },
      pkcs8('rsa', { modulusLength: 2048, publicExponent: 3 }),
      /public exponent 3 is not an odd number above 65536/,
    ],
    [
      'an EC key for an RSA spec',
      { algorithm: 'RSA' },
      { algorithm: 'RSA' },
      pkcs8('ec', { namedCurve: 'prime256v1' }),
      /an EC private key; the spec asks for RSA/,
    ],
    [
      'an Ed448 key for Ed25519',
      { algorithm: 'EdDSA' },
      { algorithm: 'EdDSA' },
      pkcs8('ed448'),
      /an Ed448 private key; the spec asks for Ed25519/,
    ],
    [
      'a public key',
      { algorithm: 'EC' },
      { algorithm: 'EC' },
      generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).publicKey.export({ type: 'spki', format: 'der' }),
      /a public key \(SPKI\)/,
    ],
    [
      'garbage DER',
      { algorithm: 'EdDSA' },
      { algorithm: 'EdDSA' },
      Buffer.from('3003020101', 'hex'),
      /not an unencrypted PKCS#8 DER private key/,
    ],
    [
      'a PKCS#1 RSA key',
      { algorithm: 'RSA' },
      { algorithm: 'RSA' },
      generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'der' }),
      /not an unencrypted PKCS#8 DER private key/,
    ],
  ];
  for (const [label, forParams, spec, material, why] of kinds)
    await refused(importBody(spec, await importParameters(alice, forParams), material), why, label);

  const wrapped = (params: { importToken: string; wrappingPublicKeyPem: string }) =>
    Buffer.from(importBody(aes, params, secret(32)).wrappedMaterialBase64, 'base64');
  const tampered = async (change: (w: Buffer) => Buffer, label: string) => {
    const p = await importParameters(alice, aes);
    await refused(
      {
        spec: { name: 'x', ...aes },
        importToken: p.importToken,
        wrappedMaterialBase64: change(wrapped(p)).toString('base64'),
      },
      /does not open with this import token's wrapping key/,
      label,
    );
  };
  await tampered((w) => ((w[10]! ^= 1), w), 'a flipped bit in the RSA part');
  await tampered((w) => ((w[w.length - 3]! ^= 1), w), 'a flipped bit in the key-wrapped part');
  await tampered((w) => w.subarray(0, 390), 'a truncated wrapping');
  const other = await importParameters(alice, aes);
  const mine = await importParameters(alice, aes);
  await refused(
    { ...importBody(aes, other, secret(32)), importToken: mine.importToken },
    /does not open/,
    "material wrapped under another token's key",
  );
  t.equal(
    keyRows(),
    before + 3,
    'only the one accepted import stored anything (its event, material and key-wrapping key)',
  );
});

t.test('two concurrent imports with one token: exactly one creates a key', async (t) => {
  const aes = { algorithm: 'AES', sizeBits: 256 };
  const params = await importParameters(alice, aes);
  const results = await Promise.all(
    Array.from({ length: 6 }, () => alice.post('/v1/keys/import', importBody(aes, params, secret(32)))),
  );
  t.same(results.map((r) => r.status).sort(), [201, 400, 400, 400, 400, 400]);
});
