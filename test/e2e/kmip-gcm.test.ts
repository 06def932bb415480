import { createDecipheriv, randomBytes } from 'node:crypto';
import t from 'tap';
import { b64 } from '../helpers/client.ts';
import { pykmip, pykmipAvailable, startKmipService, type PyKmipResult } from '../helpers/kmip.ts';
import { serverMissing } from '../helpers/test-server.ts';

const hex = (s: string | Buffer) => Buffer.from(s).toString('hex');
const ok = (r: PyKmipResult | undefined): any => {
  if (!r || !('ok' in r)) throw new Error(`expected success, got ${JSON.stringify(r)}`);
  return r.ok;
};
const flip = (hexText: string, at = 0) => {
  const b = Buffer.from(hexText, 'hex');
  b[at]! ^= 0x01;
  return b.toString('hex');
};
/** Context entries that say how a call came in, not what it did. */
const facts = (rec: any) =>
  Object.fromEntries(Object.entries(rec.context).filter(([k]) => !/^(door|source\.|kmip\.|risk\.|outcome\.)/.test(k)));

t.test("AES-GCM over KMIP with PyKMIP: IV, tag and additional data in KMIP's own fields", async (t) => {
  if (!(await pykmipAvailable())) return serverMissing(t, 'python3-pykmip is not installed and could not be installed');
  const kmip = await startKmipService();
  t.teardown(() => kmip.stop());
  const billing = kmip.identity('billing', '/CN=billing');
  const admin = kmip.svc.client('admin');
  const id = await admin.key({ name: 'kmip-gcm', algorithm: 'AES', sizeBits: 256, exportable: true });
  const material = Buffer.from((await admin.post(`/v1/keys/${id}/export`, {})).body.materialBase64, 'base64');
  // The REST answers a KMIP refusal must carry as its Result Message.
  const restDecryptFailed = (
    await admin.post(`/v1/keys/${id}/raw-decrypt`, {
      ciphertextBase64: b64('x'),
      ivBase64: randomBytes(12).toString('base64'),
      tagBase64: randomBytes(16).toString('base64'),
    })
  ).body;
  t.match(restDecryptFailed, { error: 'DecryptionFailed', message: String });
  const aad = hex('invoice 42');
  const plain = hex('attack at dawn');

  for (const version of ['1.2', '1.4', '2.0']) {
    t.test(`KMIP ${version}`, async (t) => {
      // KMIP 1.4 gave the tag and additional data fields; 1.2 carries the tag at the end of Data
      const fields = version !== '1.2';
      // PyKMIP writes Additional Data only from 1.4; the door reads it in any version
      const any = { aead_fields_any_version: !fields };
      const [enc] = await pykmip(kmip, billing, [{ op: 'gcm_encrypt', uid: id, data: plain, aad, ...any }], version);
      const e = ok(enc);
      t.equal(Buffer.from(e.iv, 'hex').length, 12, 'the IV the server drew is answered');
      const ciphertext = fields ? e.data : e.data.slice(0, -32);
      const tag = fields ? e.tag : e.data.slice(-32);
      t.equal(
        Buffer.from(tag, 'hex').length,
        16,
        fields ? 'Authenticated Encryption Tag: 16 bytes' : 'Data ends with the 16-byte tag',
      );
      t.equal(Buffer.from(ciphertext, 'hex').length, 'attack at dawn'.length, 'Data is the raw GCM ciphertext');
      const local = createDecipheriv('aes-256-gcm', material, Buffer.from(e.iv, 'hex'))
        .setAAD(Buffer.from(aad, 'hex'))
        .setAuthTag(Buffer.from(tag, 'hex'));
      t.equal(
        Buffer.concat([local.update(Buffer.from(ciphertext, 'hex')), local.final()]).toString(),
        'attack at dawn',
        'standard AES-GCM: node:crypto opens it with the exported key',
      );

      const parts = { uid: id, iv: e.iv, aad, ...any, ...(fields ? { data: ciphertext, tag } : { data: e.data }) };
      const otherTag = fields ? { tag: flip(tag) } : { data: flip(e.data, e.data.length / 2 - 1) };
      const r = await pykmip(
        kmip,
        billing,
        [
          { op: 'gcm_decrypt', ...parts },
          { op: 'gcm_decrypt', ...parts, ...otherTag },
          { op: 'gcm_decrypt', ...parts, aad: hex('invoice 43') },
          { op: 'gcm_encrypt', uid: id, data: plain, iv: e.iv, aad, ...any },
        ],
        version,
      );
      t.equal(ok(r[0]), plain, 'decrypts what it encrypted');
      for (const [i, what] of [
        [1, 'a flipped tag'],
        [2, 'other additional data'],
      ] as const) {
        t.match(
          r[i],
          { error: { status: 'OPERATION_FAILED', reason: 'CRYPTOGRAPHIC_FAILURE' } },
          `${what}: Cryptographic Failure`,
        );
        t.equal((r[i] as any).error.message, restDecryptFailed.message, `${what}: the REST DecryptionFailed message`);
      }
      // Reusing another ciphertext's IV would hand its keystream to anyone allowed to encrypt.
      t.match(
        r[3],
        { error: { reason: 'INVALID_FIELD', message: /the service draws every AES-GCM IV/ } },
        "a client's own IV is refused: Invalid Field",
      );
    });
  }

  t.test("PyKMIP's own encrypt and decrypt at KMIP 1.2 (Data and IV only): the tag rides in Data", async (t) => {
    const r = await pykmip(
      kmip,
      billing,
      [
        { op: 'encrypt', uid: id, data: plain, block_cipher_mode: 'GCM' },
        { op: 'decrypt', uid: id, data: '$0.data', iv: '$0.iv', block_cipher_mode: 'GCM' },
      ],
      '1.2',
    );
    t.equal(ok(r[1]), plain);
  });

  t.test(
    'after ReKey, a ciphertext of version 1 still decrypts: the versions held are tried, newest first',
    async (t) => {
      const key = await admin.key({ name: 'kmip-gcm-rekey', algorithm: 'AES', sizeBits: 128 });
      const r = await pykmip(
        kmip,
        billing,
        [
          { op: 'gcm_encrypt', uid: key, data: plain },
          { op: 'rekey', uid: key },
          { op: 'gcm_decrypt', uid: key, data: '$0.data', iv: '$0.iv', tag: '$0.tag' },
          { op: 'gcm_encrypt', uid: key, data: plain },
        ],
        '2.0',
      );
      t.equal(ok(r[2]), plain);
      const trail = (await admin.auditOf(key)).filter((rec: any) => rec.context.door === 'kmip');
      t.match(
        trail.map((rec: any) => `${rec.operation} ${rec.context.keyVersion ?? ''}`),
        ['Encrypt 1', 'Rotate ', 'Decrypt 1', 'Encrypt 2'],
      );
    },
  );

  t.test('audited as REST audits its raw-encrypt and raw-decrypt, with door kmip', async (t) => {
    const key = await admin.key({ name: 'kmip-gcm-audit', algorithm: 'AES', sizeBits: 256 });
    const r = await pykmip(
      kmip,
      billing,
      [
        { op: 'gcm_encrypt', uid: key, data: plain, aad },
        { op: 'gcm_decrypt', uid: key, data: '$0.data', iv: '$0.iv', tag: '$0.tag', aad },
      ],
      '1.4',
    );
    ok(r[1]);
    const viaRest = await kmip.svc.client('billing').post(`/v1/keys/${key}/raw-encrypt`, {
      plaintextBase64: b64('attack at dawn'),
      aadBase64: Buffer.from(aad, 'hex').toString('base64'),
    });
    const { ciphertextBase64, ivBase64, tagBase64 } = viaRest.body;
    await kmip.svc.client('billing').post(`/v1/keys/${key}/raw-decrypt`, {
      ciphertextBase64,
      ivBase64,
      tagBase64,
      aadBase64: Buffer.from(aad, 'hex').toString('base64'),
    });
    const trail = (await admin.auditOf(key)).filter((rec: any) => rec.principal.subject === 'billing');
    const [kmipEnc, kmipDec, restEnc, restDec] = trail;
    t.match(
      [kmipEnc, kmipDec],
      [
        { context: { door: 'kmip', 'kmip.operation': 'Encrypt', 'kmip.version': '1.4' } },
        { context: { door: 'kmip', 'kmip.operation': 'Decrypt' } },
      ],
    );
    t.match([restEnc, restDec], [{ context: { door: 'http' } }, { context: { door: 'http' } }]);
    for (const [k, r2] of [
      [kmipEnc, restEnc],
      [kmipDec, restDec],
    ]) {
      t.same(
        { operation: k.operation, resource: k.resource, outcome: k.outcome, context: facts(k) },
        { operation: r2.operation, resource: r2.resource, outcome: r2.outcome, context: facts(r2) },
        `${k.operation}: the record REST writes`,
      );
    }
  });

  t.test('what crosses between KMIP and REST', async (t) => {
    const key = await admin.key({ name: 'kmip-gcm-cross', algorithm: 'AES', sizeBits: 256 });
    const rest = kmip.svc.client('billing');
    const aadB64 = Buffer.from(aad, 'hex').toString('base64');
    const [made] = await pykmip(kmip, billing, [{ op: 'gcm_encrypt', uid: key, data: plain, aad }], '2.0');
    const m = ok(made);
    const opened = await rest.post(`/v1/keys/${key}/raw-decrypt`, {
      ciphertextBase64: Buffer.from(m.data, 'hex').toString('base64'),
      ivBase64: Buffer.from(m.iv, 'hex').toString('base64'),
      tagBase64: Buffer.from(m.tag, 'hex').toString('base64'),
      aadBase64: aadB64,
    });
    t.equal(
      Buffer.from(opened.body.plaintextBase64, 'base64').toString(),
      'attack at dawn',
      "KMIP's parts decrypt over REST raw-decrypt",
    );

    const raw = (
      await rest.post(`/v1/keys/${key}/raw-encrypt`, { plaintextBase64: b64('from rest'), aadBase64: aadB64 })
    ).body;
    const envelope = (await rest.post(`/v1/keys/${key}/encrypt`, { plaintextBase64: b64('from rest') })).body
      .ciphertextBase64;
    const bound = (
      await rest.post(`/v1/keys/${key}/encrypt`, { plaintextBase64: b64('from rest'), context: { 'kmip.aad': aadB64 } })
    ).body.ciphertextBase64;
    const h = (s: string) => Buffer.from(s, 'base64').toString('hex');
    const env = Buffer.from(envelope, 'base64');
    const r = await pykmip(
      kmip,
      billing,
      [
        { op: 'gcm_decrypt', uid: key, data: h(raw.ciphertextBase64), iv: h(raw.ivBase64), tag: h(raw.tagBase64), aad },
        { op: 'decrypt', uid: key, data: h(envelope) },
        { op: 'gcm_decrypt', uid: key, data: h(bound), aad },
        // The envelope's IV and tag as raw fields: its AAD binds the service's key id, version and context, which no
        // KMIP field carries.
        {
          op: 'gcm_decrypt',
          uid: key,
          data: env.subarray(33).toString('hex'),
          iv: env.subarray(5, 17).toString('hex'),
          tag: env.subarray(17, 33).toString('hex'),
        },
      ],
      '1.4',
    );
    t.equal(ok(r[0]), hex('from rest'), "REST raw-encrypt's parts decrypt over KMIP");
    t.equal(ok(r[1]), hex('from rest'), 'a REST envelope decrypts over KMIP as Data with no IV');
    t.equal(ok(r[2]), hex('from rest'), 'with context kmip.aad, as that Data with the Additional Data');
    t.match(r[3], { error: { reason: 'CRYPTOGRAPHIC_FAILURE' } }, 'but never split into raw fields');
  });
});
