import { createDecipheriv, randomBytes } from 'node:crypto';
import t from 'tap';
import { b64 } from '../helpers/client.ts';
import { startTestService } from '../helpers/service.ts';

const bytes = (text: string) => Buffer.from(text, 'base64');

t.test('raw AES-GCM: ciphertext, IV and tag in parts, additional data bound as given', async (t) => {
  const svc = await startTestService();
  t.teardown(() => svc.stop());
  const alice = svc.client('alice');
  const id = await alice.key({ name: 'raw-gcm', algorithm: 'AES', sizeBits: 256, exportable: true });
  const aad = b64('invoice 42');

  const enc = await alice.post(`/v1/keys/${id}/raw-encrypt`, {
    plaintextBase64: b64('attack at dawn'),
    aadBase64: aad,
  });
  t.equal(enc.status, 200);
  t.match(enc.body, { keyVersion: 1, algorithm: 'AesGcm256' });
  t.equal(bytes(enc.body.ivBase64).length, 12, 'a 12-byte IV');
  t.equal(bytes(enc.body.tagBase64).length, 16, 'a 16-byte tag');
  t.equal(bytes(enc.body.ciphertextBase64).length, 'attack at dawn'.length, 'the ciphertext alone');

  // Standard GCM: whoever holds the material opens the parts with any library.
  const material = bytes((await alice.post(`/v1/keys/${id}/export`, {})).body.materialBase64);
  const decipher = createDecipheriv('aes-256-gcm', material, bytes(enc.body.ivBase64));
  decipher.setAAD(bytes(aad));
  decipher.setAuthTag(bytes(enc.body.tagBase64));
  t.equal(
    Buffer.concat([decipher.update(bytes(enc.body.ciphertextBase64)), decipher.final()]).toString(),
    'attack at dawn',
    'node:crypto opens it with the exported key',
  );

  const parts = {
    ciphertextBase64: enc.body.ciphertextBase64,
    ivBase64: enc.body.ivBase64,
    tagBase64: enc.body.tagBase64,
    aadBase64: aad,
  };
  const dec = await alice.post(`/v1/keys/${id}/raw-decrypt`, parts);
  t.same(dec.body, { plaintextBase64: b64('attack at dawn'), keyVersion: 1 });

  const flipped = bytes(parts.tagBase64);
  flipped[0]! ^= 1;
  const refusals = [
    await alice.post(`/v1/keys/${id}/raw-decrypt`, { ...parts, tagBase64: flipped.toString('base64') }),
    await alice.post(`/v1/keys/${id}/raw-decrypt`, { ...parts, aadBase64: b64('invoice 43') }),
    await alice.post(`/v1/keys/${id}/raw-decrypt`, { ...parts, aadBase64: undefined }),
  ];
  for (const r of refusals)
    t.match(r, {
      status: 400,
      body: { error: 'DecryptionFailed', message: 'the ciphertext could not be decrypted with this key and context' },
    });

  t.test(
    'a caller never chooses the IV: one that could repeat would let anyone allowed to encrypt read and forge',
    async (t) => {
      // The attack: with Encrypt alone, encrypt known plaintext under the IV of someone else's ciphertext;
      // the keystream is then the XOR of the two, and that ciphertext is read without Decrypt.
      const own = await alice.post(`/v1/keys/${id}/raw-encrypt`, {
        plaintextBase64: b64('x'),
        ivBase64: parts.ivBase64,
      });
      t.match(own, { status: 400, body: { error: 'BadRequest', message: /unknown field "ivBase64"/ } });
      const ivs = new Set<string>();
      for (let i = 0; i < 50; i++)
        ivs.add((await alice.post(`/v1/keys/${id}/raw-encrypt`, { plaintextBase64: b64('x') })).body.ivBase64);
      t.equal(ivs.size, 50, 'fifty encryptions, fifty IVs');
      const shortTag = await alice.post(`/v1/keys/${id}/raw-decrypt`, {
        ...parts,
        tagBase64: randomBytes(12).toString('base64'),
      });
      t.match(shortTag, { status: 400, body: { error: 'InvalidField', message: /tag must be 16 bytes/ } });
    },
  );

  t.test('after a rotation, older versions still decrypt: each version held is tried, or the one named', async (t) => {
    await alice.post(`/v1/keys/${id}/rotate`, {});
    const again = await alice.post(`/v1/keys/${id}/raw-decrypt`, parts);
    t.same(again.body, { plaintextBase64: b64('attack at dawn'), keyVersion: 1 });
    t.match(
      (await alice.post(`/v1/keys/${id}/raw-decrypt`, { ...parts, keyVersion: 2 })).body,
      { error: 'DecryptionFailed' },
      'not under the version named',
    );
    t.match(
      (await alice.post(`/v1/keys/${id}/raw-encrypt`, { plaintextBase64: b64('y') })).body,
      { keyVersion: 2 },
      'new ones under the current version',
    );
  });

  t.test('audited as Encrypt and Decrypt with context raw', async (t) => {
    const trail = (await alice.auditOf(id)).filter((r: any) => r.context.raw === 'true');
    t.match(trail[0], {
      operation: 'Encrypt',
      outcome: 'Success',
      context: { door: 'http', aad: 'true', keyVersion: '1', alg: 'AesGcm256', plaintextLength: '14' },
    });
    t.match(trail[1], { operation: 'Decrypt', outcome: 'Success', context: { keyVersion: '1', aad: 'true' } });
    t.match(trail[2], { operation: 'Decrypt', outcome: 'DecryptionFailed' });
    t.notOk(JSON.stringify(trail).includes(aad), 'the additional data is not in the trail');
  });

  t.test("the envelope and the parts do not mix: encrypt's envelope is no raw ciphertext", async (t) => {
    const env = await alice.post(`/v1/keys/${id}/encrypt`, { plaintextBase64: b64('z') });
    const raw = await alice.post(`/v1/keys/${id}/raw-decrypt`, {
      ciphertextBase64: env.body.ciphertextBase64,
      ivBase64: randomBytes(12).toString('base64'),
      tagBase64: randomBytes(16).toString('base64'),
    });
    t.match(raw.body, { error: 'DecryptionFailed' });
  });
});
