import { execFileSync } from 'node:child_process';
import { createHmac, generateKeyPairSync, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import {
  pykmip,
  pykmipAvailable,
  startKmipService,
  type KmipIdentity,
  type KmipService,
  type PyKmipResult,
} from '../helpers/kmip.ts';
import { serverMissing } from '../helpers/test-server.ts';

const ALL = [
  'Create',
  'Get',
  'Locate',
  'Activate',
  'Revoke',
  'Destroy',
  'Sign',
  'Verify',
  'Encrypt',
  'Decrypt',
  'Rotate',
  'Compromise',
  'GetAttributes',
  'Export',
];
const BINDINGS = { billing: ALL, reader: ['Get', 'Locate'], admin: [...ALL, 'Query'], auditor: ['Query'] };

const ok = (r: PyKmipResult | undefined): any => {
  if (!r || !('ok' in r)) throw new Error(`expected success, got ${JSON.stringify(r)}`);
  return r.ok;
};
const hex = (s: string) => Buffer.from(s).toString('hex');

t.test("KMIP interoperability with PyKMIP's client", async (t) => {
  if (!(await pykmipAvailable())) return serverMissing(t, 'python3-pykmip is not installed and could not be installed');
  const kmip: KmipService = await startKmipService({
    SVC_POLICY_KIND: 'role-based',
    SVC_POLICY_SUBJECT_BINDINGS: JSON.stringify(BINDINGS),
  });
  t.teardown(() => kmip.stop());
  const billing: KmipIdentity = kmip.identity('billing', '/CN=billing/O=acme');
  const reader: KmipIdentity = kmip.identity('reader', '/CN=reader');
  const admin = kmip.svc.client('admin');
  const auditor = kmip.svc.client('auditor');

  t.test('DiscoverVersions and Query', async (t) => {
    const [all, offered, query] = await pykmip(kmip, billing, [
      { op: 'discover_versions' },
      { op: 'discover_versions', versions: ['3.0', '1.2', '1.4'] },
      { op: 'query', functions: ['QUERY_OPERATIONS', 'QUERY_OBJECTS', 'QUERY_SERVER_INFORMATION'] },
    ]);
    t.same(ok(all), ['2.0', '1.4', '1.3', '1.2', '1.1', '1.0']);
    t.same(ok(offered), ['1.4', '1.2'], 'only the versions both speak, newest first');
    const q = ok(query);
    // Operation numbers: Create 1, CreateKeyPair 2, Get 10, Locate 8, Encrypt 31, Sign 33, MAC 35, DiscoverVersions 30.
    for (const op of ['1', '2', '8', '10', '31', '33', '35', '30'])
      t.ok(q.operations.includes(op), `Query lists operation ${op}`);
    t.same(q.object_types.sort(), ['2', '3', '4'], 'symmetric, public and private keys');
    t.equal(q.vendor, 'svc-kms');
  });

  t.test('an AES key made over KMIP is the same key over REST, audited with door kmip', async (t) => {
    const r = await pykmip(kmip, billing, [
      { op: 'create', algorithm: 'AES', length: 256, name: 'kmip-invoices' },
      { op: 'activate', uid: '$0' },
      { op: 'encrypt', uid: '$0', data: hex('attack at dawn'), block_cipher_mode: 'GCM' },
      { op: 'get_attributes', uid: '$0' },
      { op: 'get_attribute_list', uid: '$0' },
      { op: 'rekey', uid: '$0' },
      { op: 'locate', name: 'kmip-invoices' },
    ]);
    const id = ok(r[0]);
    const rest = await admin.get(`/v1/keys/${id}`);
    t.match(rest.body, {
      id,
      spec: { name: 'kmip-invoices', algorithm: 'AES', sizeBits: 256, objectType: 'SymmetricKey' },
      owner: 'billing',
      tenant: 'acme',
      state: 'Active',
      currentVersion: 2,
    });
    const encrypted = ok(r[2]);
    t.match(ok(r[3]), {
      'Unique Identifier': id,
      Name: 'kmip-invoices',
      'Object Type': 'SYMMETRIC_KEY',
      'Cryptographic Algorithm': 'AES',
      'Cryptographic Length': 256,
      State: 'ACTIVE',
    });
    t.ok(ok(r[4]).includes('Activation Date'), 'GetAttributeList names what GetAttributes answers');
    t.equal(ok(r[5]), id, 'ReKey rotates and keeps the identifier');
    t.same(ok(r[6]), [id], 'Locate by Name');
    const [plain] = await pykmip(kmip, billing, [
      { op: 'decrypt', uid: id, data: encrypted.data, iv: encrypted.iv, block_cipher_mode: 'GCM' },
    ]);
    t.equal(ok(plain), hex('attack at dawn'), 'a ciphertext of version 1 decrypts after ReKey');
    // KMIP 1.2 has no tag field: Data is the GCM ciphertext followed by its 16-byte tag.
    const data = Buffer.from(encrypted.data, 'hex');
    const parts = {
      ciphertextBase64: data.subarray(0, -16).toString('base64'),
      tagBase64: data.subarray(-16).toString('base64'),
      ivBase64: Buffer.from(encrypted.iv, 'hex').toString('base64'),
    };
    const viaRest = await admin.post(`/v1/keys/${id}/raw-decrypt`, parts);
    t.equal(
      Buffer.from(viaRest.body.plaintextBase64, 'base64').toString(),
      'attack at dawn',
      'REST raw-decrypt decrypts what KMIP encrypted',
    );
    const end = await pykmip(kmip, billing, [
      { op: 'revoke', reason: 'CESSATION_OF_OPERATION', uid: id },
      { op: 'destroy', uid: id },
    ]);
    t.same(end.map(ok), [null, null], 'PyKMIP answers Revoke and Destroy with nothing on success');
    t.match((await admin.get(`/v1/keys/${id}`)).body, { state: 'Destroyed', revokedAt: String });
    const trail = (await auditor.auditOf(id)).filter((rec: any) => rec.principal.subject === 'billing');
    t.same(
      trail.map((rec: any) => `${rec.operation} ${rec.context['kmip.operation']}`),
      [
        'Create Create',
        'Activate Activate',
        'Encrypt Encrypt',
        'Get GetAttributes',
        'Get GetAttributeList',
        'Rotate Rekey',
        'Decrypt Decrypt',
        'Revoke Revoke',
        'Destroy Destroy',
      ],
      'one record per call, each naming the KMIP operation',
    );
    for (const rec of trail)
      t.match(rec, { outcome: 'Success', context: { door: 'kmip', 'kmip.version': '1.2', 'source.ip': '127.0.0.1' } });
  });

  t.test('Revoke with Key Compromise is Compromise; Locate filters and pages', async (t) => {
    const r = await pykmip(kmip, billing, [
      { op: 'create', algorithm: 'AES', length: 128, name: 'kmip-page-1' },
      { op: 'create', algorithm: 'AES', length: 192, name: 'kmip-page-2' },
      { op: 'create', algorithm: 'AES', length: 256, name: 'kmip-page-3' },
      { op: 'activate', uid: '$2' },
      { op: 'locate', name: 'kmip-page-*' },
      { op: 'locate', name: 'kmip-page-*', maximum_items: 1, offset_items: 1 },
      { op: 'locate', name: 'kmip-page-*', state: 'ACTIVE' },
      { op: 'locate', name: 'kmip-page-*', object_type: 'PRIVATE_KEY' },
      { op: 'locate', name: 'kmip-page-*', algorithm: 'AES', object_type: 'SYMMETRIC_KEY' },
      { op: 'revoke', reason: 'KEY_COMPROMISE', uid: '$2', message: 'laptop stolen' },
    ]);
    const [a, b, c] = [ok(r[0]), ok(r[1]), ok(r[2])];
    // Newest first, but the three creates of one batch may share a millisecond, which the key ids then order:
    // the test holds the pages to the first answer's order instead of to the order of the creates.
    const all = ok(r[4]) as string[];
    t.same([...all].sort(), [a, b, c].sort(), 'the three keys whose names match');
    t.same(ok(r[5]), [all[1]], 'Offset Items 1, Maximum Items 1: the second of them');
    t.same(ok(r[6]), [c], 'by State');
    t.same(ok(r[7]), [], 'by Object Type');
    t.same(ok(r[8]), all, 'by Cryptographic Algorithm and Object Type');
    t.match((await admin.get(`/v1/keys/${c}`)).body, { state: 'Compromised', reason: 'laptop stolen' });
  });

  t.test('key pairs: RSA and EC, signatures that OpenSSL verifies', async (t) => {
    const dir = kmip.svc.dir;
    const message = 'pay 100 to bob';
    writeFileSync(path.join(dir, 'message.txt'), message);
    const cases = [
      {
        algorithm: 'RSA',
        length: 2048,
        params: { padding_method: 'PSS', hashing_algorithm: 'SHA_256' },
        openssl: ['-sigopt', 'rsa_padding_mode:pss', '-sigopt', 'rsa_pss_saltlen:32'],
      },
      {
        algorithm: 'RSA',
        length: 3072,
        params: { digital_signature_algorithm: 'SHA256_WITH_RSA_ENCRYPTION' },
        openssl: [],
      },
      {
        algorithm: 'ECDSA',
        length: 256,
        params: { cryptographic_algorithm: 'ECDSA', hashing_algorithm: 'SHA_256' },
        openssl: [],
      },
      {
        algorithm: 'ECDSA',
        length: 384,
        params: { digital_signature_algorithm: 'ECDSA_WITH_SHA384' },
        openssl: [],
        digest: '-sha384',
      },
      { algorithm: 'ECDSA', length: 521, params: {}, openssl: [] },
    ];
    for (const c of cases) {
      const r = await pykmip(kmip, billing, [
        { op: 'create_key_pair', algorithm: c.algorithm, length: c.length, name: `kmip-${c.algorithm}-${c.length}` },
      ]);
      const pair = ok(r[0]);
      t.equal(pair.public, `${pair.private}-public`, 'the public key is <key id>-public');
      const s = await pykmip(kmip, billing, [
        { op: 'activate', uid: pair.private },
        { op: 'sign', uid: pair.private, data: hex(message), ...c.params },
        { op: 'signature_verify', uid: pair.public, data: hex(message), signature: '$1', ...c.params },
        { op: 'signature_verify', uid: pair.public, data: hex('pay 999 to eve'), signature: '$1', ...c.params },
        { op: 'get', uid: pair.public },
        { op: 'get_attributes', uid: pair.public },
      ]);
      t.equal(ok(s[2]), 'VALID', `${c.algorithm}-${c.length}: SignatureVerify`);
      t.equal(ok(s[3]), 'INVALID', `${c.algorithm}-${c.length}: another message does not verify`);
      t.match(ok(s[4]), { object_type: 'PUBLIC_KEY', format: 'X_509', length: c.length });
      t.match(ok(s[5]), { 'Object Type': 'PUBLIC_KEY', 'Cryptographic Length': c.length, State: 'ACTIVE' });
      writeFileSync(path.join(dir, 'public.der'), Buffer.from(ok(s[4]).value, 'hex'));
      writeFileSync(path.join(dir, 'signature.bin'), Buffer.from(ok(s[1]), 'hex'));
      execFileSync('openssl', ['pkey', '-pubin', '-inform', 'DER', '-in', 'public.der', '-out', 'public.pem'], {
        cwd: dir,
      });
      const out = execFileSync(
        'openssl',
        [
          'dgst',
          c.digest ?? (c.length === 521 ? '-sha512' : '-sha256'),
          '-verify',
          'public.pem',
          '-signature',
          'signature.bin',
          ...c.openssl,
          'message.txt',
        ],
        { cwd: dir, encoding: 'utf8' },
      );
      t.match(out, /Verified OK/, `${c.algorithm}-${c.length}: OpenSSL verifies the signature made over KMIP`);
      t.match((await admin.get(`/v1/keys/${pair.private}`)).body, {
        spec: { objectType: 'PrivateKey' },
        state: 'Active',
        owner: 'billing',
      });
    }
  });

  t.test('RSA 4096 pairs', async (t) => {
    const [r] = await pykmip(kmip, billing, [
      { op: 'create_key_pair', algorithm: 'RSA', length: 4096, name: 'kmip-rsa-4096' },
    ]);
    t.match((await admin.get(`/v1/keys/${ok(r).private}`)).body, { spec: { algorithm: 'RSA', sizeBits: 4096 } });
  });

  t.test('Get of material: only for exportable keys, and MAC with an HMAC key', async (t) => {
    const exportable = (
      await admin.post('/v1/keys', {
        spec: { name: 'kmip-exportable', algorithm: 'AES', sizeBits: 256, exportable: true },
      })
    ).body.id;
    const hmacKey = (
      await admin.post('/v1/keys', { spec: { name: 'kmip-hmac', algorithm: 'HMAC', sizeBits: 256, exportable: true } })
    ).body.id;
    const sealed = (await admin.post('/v1/keys', { spec: { name: 'kmip-sealed', algorithm: 'AES', sizeBits: 256 } }))
      .body.id;
    for (const id of [exportable, hmacKey, sealed]) await admin.post(`/v1/keys/${id}/activate`);
    const r = await pykmip(kmip, billing, [
      { op: 'get', uid: exportable },
      { op: 'get', uid: sealed },
      { op: 'mac', uid: hmacKey, data: hex('ledger line'), algorithm: 'HMAC_SHA256' },
    ]);
    const material = Buffer.from((await admin.post(`/v1/keys/${exportable}/export`, {})).body.materialBase64, 'base64');
    t.match(ok(r[0]), {
      object_type: 'SYMMETRIC_KEY',
      value: material.toString('hex'),
      format: 'RAW',
      algorithm: 'AES',
      length: 256,
    });
    t.match(r[1], {
      error: { status: 'OPERATION_FAILED', reason: 'WRONG_KEY_LIFECYCLE_STATE', message: /is not exportable/ },
    });
    const rest = await admin.post(`/v1/keys/${sealed}/export`, {});
    t.equal((r[1] as any).error.message, rest.body.message, 'the Result Message is the REST message');
    const hmacMaterial = Buffer.from(
      (await admin.post(`/v1/keys/${hmacKey}/export`, {})).body.materialBase64,
      'base64',
    );
    t.equal(
      ok(r[2]),
      createHmac('sha256', hmacMaterial).update('ledger line').digest('hex'),
      'MAC is HMAC-SHA256 under the key',
    );
    const refused = (await auditor.auditOf(sealed)).filter((rec: any) => rec.principal.subject === 'billing');
    t.match(refused.at(-1), { operation: 'Export', outcome: 'IllegalOperation', context: { door: 'kmip' } });
  });

  t.test('refusals come back as KMIP results with the mapped reasons, and are audited', async (t) => {
    const [created] = await pykmip(kmip, billing, [
      { op: 'create', algorithm: 'AES', length: 256, name: 'kmip-refusals' },
    ]);
    const id = ok(created);
    const asReader = await pykmip(kmip, reader, [
      { op: 'activate', uid: id },
      { op: 'get_attributes', uid: id },
      { op: 'get_attributes', uid: '00000000-0000-4000-8000-000000000000' },
    ]);
    t.match(asReader[0], { error: { reason: 'PERMISSION_DENIED' } }, 'no permission');
    t.match(ok(asReader[1]), { State: 'PRE_ACTIVE' }, 'what it may do, it does');
    t.match(asReader[2], { error: { reason: 'ITEM_NOT_FOUND' } });
    const restRefusal = await kmip.svc.client('reader').post(`/v1/keys/${id}/activate`);
    t.equal((asReader[0] as any).error.message, restRefusal.body.message, 'the REST message');
    const wrongState = await pykmip(kmip, billing, [
      { op: 'encrypt', uid: id, data: hex('too early') },
      { op: 'create', algorithm: 'BLOWFISH', length: 128 },
      { op: 'decrypt', uid: id, data: '00', iv: '00'.repeat(12) },
    ]);
    t.match(wrongState[0], { error: { reason: 'WRONG_KEY_LIFECYCLE_STATE' } }, 'PreActive keys do not encrypt');
    t.match(wrongState[1], { error: { reason: 'INVALID_FIELD', message: /not one the service makes keys of/ } });
    const trail = (await auditor.auditOf(id)).filter(
      (rec: any) => rec.principal.subject !== 'billing' || rec.operation !== 'Create',
    );
    t.match(trail, [
      {
        principal: { subject: 'reader' },
        operation: 'Activate',
        outcome: 'PermissionDenied',
        context: { door: 'kmip' },
      },
      { principal: { subject: 'reader' }, operation: 'Get', outcome: 'Success', context: { door: 'kmip' } },
      {
        principal: { subject: 'reader' },
        operation: 'Activate',
        outcome: 'PermissionDenied',
        context: { door: 'http' },
      },
      {
        principal: { subject: 'billing' },
        operation: 'Encrypt',
        outcome: 'IllegalOperation',
        context: { door: 'kmip' },
      },
      { principal: { subject: 'billing' }, operation: 'Decrypt', context: { door: 'kmip' } },
    ]);
  });

  t.test('Register: symmetric and private keys are imported, the same keys over REST', async (t) => {
    const aes = randomBytes(32);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pkcs8 = rsa.privateKey.export({ type: 'pkcs8', format: 'der' });
    const r = await pykmip(kmip, billing, [
      {
        op: 'register',
        kind: 'symmetric',
        algorithm: 'AES',
        length: 256,
        material: aes.toString('hex'),
        name: 'kmip-byok',
      },
      {
        op: 'register',
        kind: 'private',
        algorithm: 'RSA',
        length: 2048,
        material: pkcs8.toString('hex'),
        name: 'kmip-byok-rsa',
      },
      { op: 'activate', uid: '$0' },
      { op: 'activate', uid: '$1' },
      { op: 'sign', uid: '$1', data: hex('registered'), padding_method: 'PKCS1v15', hashing_algorithm: 'SHA_256' },
      { op: 'get', uid: '$0' },
    ]);
    const [aesId, rsaId] = [ok(r[0]), ok(r[1])];
    t.match((await admin.get(`/v1/keys/${aesId}`)).body, {
      spec: { name: 'kmip-byok', algorithm: 'AES', sizeBits: 256, exportable: false },
      origin: 'imported',
      state: 'Active',
      owner: 'billing',
    });
    t.match((await admin.get(`/v1/keys/${rsaId}`)).body, {
      spec: { algorithm: 'RSA', sizeBits: 2048, objectType: 'PrivateKey' },
      origin: 'imported',
    });
    const { createVerify } = await import('node:crypto');
    t.ok(
      createVerify('sha256')
        .update('registered')
        .verify(rsa.publicKey, Buffer.from(ok(r[4]), 'hex')),
      'the registered private key signs',
    );
    t.match(
      r[5],
      { error: { reason: 'WRONG_KEY_LIFECYCLE_STATE', message: /not exportable/ } },
      'a registered key is not exportable unless registered Extractable',
    );
    const enc = await admin.post(`/v1/keys/${aesId}/encrypt`, {
      plaintextBase64: Buffer.from('byok').toString('base64'),
    });
    t.equal(enc.status, 200);
    const trail = (await auditor.auditOf(aesId)).filter((rec: any) => rec.principal.subject === 'billing');
    t.match(trail[0], {
      operation: 'Create',
      outcome: 'Success',
      context: { door: 'kmip', 'kmip.operation': 'Register' },
    });
    t.notOk(JSON.stringify(trail).includes(aes.toString('base64')), 'the material is in no audit record');
    const bad = await pykmip(kmip, billing, [
      { op: 'register', kind: 'private', algorithm: 'RSA', length: 2048, material: '3000', name: 'broken' },
    ]);
    t.match(bad[0], { error: { reason: 'INVALID_FIELD', message: /does not read as a private key/ } });
  });

  t.test('KMIP 2.0: attributes by tag', async (t) => {
    const r = await pykmip(
      kmip,
      billing,
      [
        { op: 'create', algorithm: 'AES', length: 256, name: 'kmip-two' },
        { op: 'get_attributes', uid: '$0' },
        { op: 'locate', name: 'kmip-two' },
      ],
      '2.0',
    );
    const id = ok(r[0]);
    t.match((await admin.get(`/v1/keys/${id}`)).body, { spec: { name: 'kmip-two' } });
    t.same(ok(r[2]), [id]);
    t.match(ok(r[1]), {
      'Unique Identifier': id,
      Name: 'kmip-two',
      'Object Type': 'SYMMETRIC_KEY',
      'Cryptographic Algorithm': 'AES',
      State: 'PRE_ACTIVE',
    });
  });

  t.test("KMIP 1.4 and 1.0: answered in the request's version", async (t) => {
    // 1.4 carries GCM's tag in a field of its own (PyKMIP's payloads); 1.0 at the end of Data, which PyKMIP's encrypt
    // and decrypt pass through.
    const steps = {
      '1.4': [
        { op: 'gcm_encrypt', uid: '$0', data: hex('versioned') },
        { op: 'gcm_decrypt', uid: '$0', data: '$2.data', iv: '$2.iv', tag: '$2.tag' },
      ],
      '1.0': [
        { op: 'encrypt', uid: '$0', data: hex('versioned') },
        { op: 'decrypt', uid: '$0', data: '$2.data', iv: '$2.iv' },
      ],
    };
    for (const version of ['1.4', '1.0'] as const) {
      const r = await pykmip(
        kmip,
        billing,
        [
          { op: 'create', algorithm: 'AES', length: 128, name: `kmip-${version}` },
          { op: 'activate', uid: '$0' },
          ...steps[version],
        ],
        version,
      );
      t.equal(ok(r[3]), hex('versioned'), `KMIP ${version}`);
    }
  });
});
