import { createHmac, createPrivateKey, createPublicKey, verify, randomUUID } from 'node:crypto';
import t from 'tap';
import { ApiClient, b64 } from '../helpers/client.ts';
import { importBody, importKey, importParameters, pkcs8, secret } from '../helpers/byok.ts';
import { startTestService } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

const svc = await startTestService({
  SVC_AUTH_KIND: 'hmac',
  SVC_AUTH_HMAC_SECRET: TEST_SECRET,
  SVC_JOURNAL_KIND: 'rdb-embedded',
});
t.teardown(() => svc.stop());
const as = async (claims: Record<string, unknown>) =>
  new ApiClient(svc.url, { Authorization: `Bearer ${await mintToken(claims, { ttlSeconds: 3600 })}` });
const alice = await as({ sub: 'alice' });
const message = Buffer.from('a message signed by an imported key');

async function activated(res: { status: number; body: any }) {
  if (res.status !== 201) throw new Error(`import failed: ${res.status} ${JSON.stringify(res.body)}`);
  const activate = await alice.post(`/v1/keys/${res.body.id}/activate`);
  if (activate.status !== 200) throw new Error(`activate failed: ${activate.status}`);
  return res.body.id as string;
}

t.test('imported HMAC keys produce what node:crypto produces with the original secret', async (t) => {
  for (const [sizeBits, hash] of [
    [256, 'sha256'],
    [384, 'sha384'],
    [512, 'sha512'],
  ] as const) {
    const original = secret(sizeBits / 8);
    const res = await importKey(alice, { algorithm: 'HMAC', sizeBits }, original);
    t.match(
      res.body,
      {
        state: 'PreActive',
        origin: 'imported',
        owner: 'alice',
        spec: { algorithm: 'HMAC', sizeBits, exportable: false },
      },
      `HMAC-${sizeBits} imported PreActive`,
    );
    const id = await activated(res);
    const tag = await alice.post(`/v1/keys/${id}/sign`, { messageBase64: b64(message) });
    t.equal(
      tag.body.signatureBase64,
      createHmac(hash, original).update(message).digest('base64'),
      `HMAC-${sizeBits}: the same tag as node:crypto with the original`,
    );
  }
});

t.test('signatures of imported RSA, EC and EdDSA keys verify with the original public key', async (t) => {
  const cases: Array<[Record<string, unknown>, Buffer, string | null]> = [
    [{ algorithm: 'RSA', sizeBits: 2048 }, pkcs8('rsa', { modulusLength: 2048 }), 'sha256'],
    [{ algorithm: 'RSA', sizeBits: 3072 }, pkcs8('rsa', { modulusLength: 3072 }), 'sha256'],
    [{ algorithm: 'EC', curve: 'P-256' }, pkcs8('ec', { namedCurve: 'prime256v1' }), 'sha256'],
    [{ algorithm: 'EC', curve: 'P-384' }, pkcs8('ec', { namedCurve: 'secp384r1' }), 'sha384'],
    [{ algorithm: 'EC', curve: 'secp256k1' }, pkcs8('ec', { namedCurve: 'secp256k1' }), 'sha256'],
    [{ algorithm: 'EdDSA', curve: 'Ed25519' }, pkcs8('ed25519'), null],
    [{ algorithm: 'EdDSA', curve: 'Ed448' }, pkcs8('ed448'), null],
  ];
  for (const [spec, original, hash] of cases) {
    const id = await activated(await importKey(alice, spec, original));
    const sig = await alice.post(`/v1/keys/${id}/sign`, {
      messageBase64: b64(message),
      ...(spec.algorithm === 'RSA' ? { algorithm: 'RsaPkcs1Sha256' } : {}),
    });
    t.equal(sig.status, 200);
    const publicKey = createPublicKey(createPrivateKey({ key: original, format: 'der', type: 'pkcs8' }));
    t.ok(
      verify(hash, message, publicKey, Buffer.from(sig.body.signatureBase64, 'base64')),
      `${JSON.stringify(spec)}: node:crypto verifies it with the original's public key`,
    );
    t.equal(
      (await alice.get(`/v1/keys/${id}/public-key`)).body.publicKeyPem,
      publicKey.export({ type: 'spki', format: 'pem' }),
      'and the service shows that public key',
    );
  }
});

t.test(
  'an imported AES key encrypts and decrypts; export of an exportable imported key gives back the same bytes',
  async (t) => {
    const cases: Array<[Record<string, unknown>, Buffer, string]> = [
      [{ algorithm: 'AES', sizeBits: 256 }, secret(32), 'raw'],
      [{ algorithm: 'AES', sizeBits: 128 }, secret(16), 'raw'],
      [{ algorithm: 'HMAC', sizeBits: 512 }, secret(64), 'raw'],
      [{ algorithm: 'RSA', sizeBits: 2048 }, pkcs8('rsa', { modulusLength: 2048 }), 'pkcs8-der'],
      [{ algorithm: 'EC', curve: 'P-521' }, pkcs8('ec', { namedCurve: 'secp521r1' }), 'pkcs8-der'],
      [{ algorithm: 'EdDSA', curve: 'Ed25519' }, pkcs8('ed25519'), 'pkcs8-der'],
    ];
    for (const [spec, original, format] of cases) {
      const id = await activated(await importKey(alice, { ...spec, exportable: true }, original));
      if (spec.algorithm === 'AES') {
        const enc = await alice.post(`/v1/keys/${id}/encrypt`, { plaintextBase64: b64('data'), context: { a: 'b' } });
        t.equal(
          (
            await alice.post(`/v1/keys/${id}/decrypt`, {
              ciphertextBase64: enc.body.ciphertextBase64,
              context: { a: 'b' },
            })
          ).body.plaintextBase64,
          b64('data'),
        );
      }
      const exported = await alice.post(`/v1/keys/${id}/export`, {});
      t.same(
        exported.body,
        { id, keyVersion: 1, format, materialBase64: original.toString('base64') },
        `${JSON.stringify(spec)}: export returns the imported bytes`,
      );
    }
  },
);

t.test('created keys show origin generated and are not exportable unless asked', async (t) => {
  const created = await alice.post('/v1/keys', { spec: { name: `made-${randomUUID()}`, algorithm: 'AES' } });
  t.match(created.body, { origin: 'generated', spec: { exportable: false } });
  const exportable = await alice.post('/v1/keys', {
    spec: { name: `made-${randomUUID()}`, algorithm: 'AES', exportable: true },
  });
  t.match(exportable.body, { origin: 'generated', spec: { exportable: true } });
  t.match(
    (await alice.get(`/v1/keys/${exportable.body.id}`)).body,
    { origin: 'generated', spec: { exportable: true } },
    'GET shows both',
  );
  t.equal(
    (await alice.post('/v1/keys', { spec: { name: 'x', algorithm: 'AES', exportable: 'yes' } })).status,
    400,
    'exportable is a boolean',
  );
});
t.test('agents are refused import parameters, import and export whatever their scopes; Services are not', async (t) => {
  const id = await activated(await importKey(alice, { algorithm: 'AES', exportable: true }, secret(32)));
  const issued = await alice.post('/v1/agents/issue', {
    label: 'all-scopes',
    scopes: ['Create', 'Get', 'Activate', 'Encrypt'],
    ttlSeconds: 600,
  });
  t.equal(issued.status, 200);
  const agent = new ApiClient(svc.url, { Authorization: `Bearer ${issued.body.jwt}` });
  t.equal((await agent.get(`/v1/keys/${id}`)).status, 200, 'the agent may Get the key');
  const exported = await agent.post(`/v1/keys/${id}/export`, {});
  t.equal(exported.status, 403, 'but not export it');
  t.match(exported.body.message, /refused to agents whatever their scopes/);
  t.equal(
    (await agent.post('/v1/keys/import-parameters', { algorithm: 'AES' })).status,
    403,
    'nor ask for import parameters',
  );
  const params = await importParameters(alice, { algorithm: 'AES' });
  t.equal(
    (await agent.post('/v1/keys/import', importBody({ algorithm: 'AES' }, params, secret(32)))).status,
    403,
    "nor import, even with a Human's token",
  );
  t.equal(
    (await agent.post('/v1/keys', { spec: { name: 'plain', algorithm: 'AES' } })).status,
    201,
    'while it still creates keys',
  );
  const service = await as({ sub: 'svc-batch', svc_kind: 'service' });
  const imported = await importKey(service, { algorithm: 'HMAC', exportable: true }, secret(32));
  t.equal(imported.status, 201, 'a Service imports');
  t.equal((await service.post(`/v1/keys/${imported.body.id}/activate`)).status, 200);
  t.equal((await service.post(`/v1/keys/${imported.body.id}/export`, {})).status, 200, 'and exports');
});

t.test('export: exportable keys in Active or Deactivated only, any version; 409 otherwise', async (t) => {
  const conflict = async (id: string, body: unknown, why: RegExp, label: string) => {
    const res = await alice.post(`/v1/keys/${id}/export`, body);
    t.equal(res.status, 409, `${label}: 409`);
    t.equal(res.body.error, 'IllegalOperation', label);
    t.match(res.body.message, why, label);
  };
  const plain = await alice.key({ algorithm: 'AES' });
  await conflict(plain, {}, /is not exportable/, 'a key created without exportable');
  const pre = (await alice.post('/v1/keys', { spec: { name: 'pre', algorithm: 'EdDSA', exportable: true } })).body.id;
  await conflict(pre, {}, /is PreActive; export is allowed only from Active or Deactivated/, 'a PreActive key');
  const id = await alice.key({ algorithm: 'EC', exportable: true });
  const v1 = (await alice.post(`/v1/keys/${id}/export`, {})).body;
  t.match(v1, { id, keyVersion: 1, format: 'pkcs8-der' });
  const exportedKey = createPublicKey(
    createPrivateKey({ key: Buffer.from(v1.materialBase64, 'base64'), format: 'der', type: 'pkcs8' }),
  );
  t.equal(
    exportedKey.export({ type: 'spki', format: 'pem' }),
    (await alice.get(`/v1/keys/${id}/public-key`)).body.publicKeyPem,
    "the exported private key is the key's own",
  );
  await alice.post(`/v1/keys/${id}/rotate`, {});
  const v2 = (await alice.post(`/v1/keys/${id}/export`, {})).body;
  t.equal(v2.keyVersion, 2, 'the current version by default');
  t.not(v2.materialBase64, v1.materialBase64);
  t.same((await alice.post(`/v1/keys/${id}/export`, { version: 1 })).body, v1, 'an older version on request');
  await conflict(id, { version: 3 }, /has no version 3/, 'a version the key does not have');
  t.equal((await alice.post(`/v1/keys/${id}/export`, { version: 0 })).status, 400, 'version 0 is not a version');
  t.equal((await alice.post(`/v1/keys/${id}/revoke`, {})).status, 200);
  t.same((await alice.post(`/v1/keys/${id}/export`, {})).body, v2, 'a Deactivated key still exports');
  t.equal((await alice.post(`/v1/keys/${id}/compromise`, { reason: 'test' })).status, 200);
  await conflict(id, {}, /is Compromised/, 'a Compromised key');
  t.equal((await alice.call('DELETE', `/v1/keys/${id}`)).status, 200);
  await conflict(id, {}, /is Destroyed/, 'a Destroyed key');
  t.equal((await alice.post('/v1/keys/00000000-0000-4000-8000-000000000001/export', {})).status, 404, 'an unknown key');
});

t.test('the audit trail records exports and imports, never material, tokens or wrapped bytes', async (t) => {
  const original = secret(32);
  const params = await importParameters(alice, { algorithm: 'AES' });
  const body = importBody({ algorithm: 'AES', exportable: true }, params, original);
  const id = (await alice.post('/v1/keys/import', body)).body.id;
  await alice.post(`/v1/keys/${id}/activate`);
  const exported = await alice.post(`/v1/keys/${id}/export`, {});
  t.equal(exported.body.materialBase64, original.toString('base64'));
  const rows = await alice.auditOf(id);
  t.match(
    rows.map((r) => r.operation),
    ['Create', 'Activate', 'Export'],
  );
  t.match(rows[0], {
    outcome: 'Success',
    principal: { subject: 'alice' },
    context: { origin: 'imported', algorithm: 'AES', sizeBits: '256', exportable: 'true', owner: 'alice' },
  });
  t.match(
    rows[2],
    { operation: 'Export', outcome: 'Success', context: { export: 'true', keyVersion: '1', format: 'raw' } },
    'the export is audited as Export',
  );
  const all = JSON.stringify((await alice.get('/v1/audit?limit=1000')).body);
  for (const [label, secretText] of [
    ['material (base64)', original.toString('base64')],
    ['material (hex)', original.toString('hex')],
    ['import token', params.importToken],
    ['wrapped material', body.wrappedMaterialBase64.slice(0, 40)],
  ]) {
    t.notOk(all.includes(secretText!), `no audit record holds the ${label}`);
  }
  const parameterRows = (await alice.get('/v1/audit?limit=1000')).body.records.filter(
    (r: any) => r.resource === 'import:AES',
  );
  t.ok(parameterRows.length > 0, 'import parameters are audited (resource import:<algorithm>)');
  t.match(parameterRows[0], { operation: 'Create', context: { keyType: 'AES/256' } });
});

t.test('a refused export and a refused import are audited too', async (t) => {
  const id = await alice.key({ algorithm: 'AES' });
  await alice.post(`/v1/keys/${id}/export`, {});
  const rows = await alice.auditOf(id);
  t.match(rows.at(-1), { operation: 'Export', outcome: 'IllegalOperation', context: { export: 'true' } });
  await alice.post('/v1/keys/import', {
    spec: { name: 'refused-import', algorithm: 'AES' },
    importToken: 'nope',
    wrappedMaterialBase64: b64('x'.repeat(400)),
  });
  const refused = (await alice.get('/v1/audit?limit=50')).body.records.find(
    (r: any) => r.resource === 'name:refused-import',
  );
  t.match(refused, { operation: 'Create', outcome: 'InvalidField', context: { origin: 'imported' } });
});
