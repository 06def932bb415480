import { createHash, createPublicKey, verify } from 'node:crypto';
import t from 'tap';
import { ApiClient } from '../helpers/client.ts';
import { startTestService } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';
import { errorOf, hvacClient, okOf } from '../helpers/vault-clients.ts';

/**
 * Debian's hvac (python3-hvac, test/fixtures/vault-hvac-client.py) against the transit door with a
 * svc-kms bearer token as its Vault token: keys (create, read, list, rotate, config, trim, delete),
 * encryption with contexts and batches, rewrap, data keys, signatures in each form (checked by
 * node:crypto too), HMACs, export, random bytes, and Vault's refusals as hvac raises them.
 */

t.setTimeout(600_000);

const b64 = (text: string) => Buffer.from(text).toString('base64');
const MESSAGE = b64('transit says hello');

t.test('hvac against the transit door', async (t) => {
  const svc = await startTestService({
    SVC_AUTH_KIND: 'hmac',
    SVC_AUTH_HMAC_SECRET: TEST_SECRET,
    SVC_RISK_ENABLED: 'false',
  });
  t.teardown(() => svc.stop());
  const token = await mintToken({ sub: 'alice', svc_kind: 'human' }, { ttlSeconds: 3600 });
  const hvac = await hvacClient(t, svc.url, token);
  if (!hvac) return;
  t.comment(hvac.version);
  const rest = new ApiClient(svc.url, { Authorization: `Bearer ${token}` });
  // hvac 0.11 (Debian 12) checks key types against its own list, which predates hmac and aes128-gcm96 keys
  // (and the public-key export): those requests are written with its adapter directly.
  const createDirect = (name: string, type: string) => ({
    op: 'write_path',
    args: { path: `/v1/transit/keys/${name}`, body: { type } },
  });

  t.test('create, read and list keys of each type; a name is the alias alias/NAME', async (t) => {
    const types = ['aes256-gcm96', 'aes128-gcm96', 'ecdsa-p256', 'ecdsa-p384', 'ed25519', 'rsa-2048', 'hmac'];
    const created = await hvac.run(
      types.map((type) =>
        type === 'hmac' || type === 'aes128-gcm96'
          ? createDirect(`t-${type}`, type)
          : { op: 'create_key', args: { name: `t-${type}`, key_type: type } },
      ),
    );
    for (const [i, type] of types.entries()) {
      const data = okOf(created[i]).data;
      t.match(data, { name: `t-${type}`, type, latest_version: 1, min_decryption_version: 1 }, type);
      const over = await rest.get(`/v1/keys/${encodeURIComponent(`alias/t-${type}`)}`);
      t.equal(over.body.id, data['svc.key_id'], `${type}: alias/t-${type} names the key over REST`);
      t.equal(over.body.state, 'Active');
    }
    const [ec, ed, again, listed, hvacList] = await hvac.run([
      { op: 'read_key', args: { name: 't-ecdsa-p256' } },
      { op: 'read_key', args: { name: 't-ed25519' } },
      { op: 'create_key', args: { name: 't-aes256-gcm96', key_type: 'rsa-2048' } },
      { op: 'read_path', args: { path: '/v1/transit/keys', params: { list: 'true' } } },
      { op: 'list_keys' },
    ]);
    const ecKey = okOf(ec).data.keys['1'];
    t.match(ecKey, { name: 'P-256', public_key: /^-----BEGIN PUBLIC KEY-----/ });
    t.equal(createPublicKey(ecKey.public_key).asymmetricKeyDetails?.namedCurve, 'prime256v1');
    t.equal(Buffer.from(okOf(ed).data.keys['1'].public_key, 'base64').length, 32, 'ed25519: the raw public key');
    t.equal(okOf(again).data.type, 'aes256-gcm96', 'creating an existing name leaves the key as it is, as Vault');
    t.same(okOf(listed).data.keys.sort(), types.map((type) => `t-${type}`).sort());
    t.equal(errorOf(hvacList).exception, 'InvalidRequest', "hvac's LIST verb is refused by Node's HTTP parser");
  });

  t.test('encrypt and decrypt, with a context and in batches; rotate; rewrap; trim', async (t) => {
    const context = b64('tenant-7');
    const [made, sealed, withContext] = await hvac.run([
      { op: 'create_key', args: { name: 'orders' } },
      { op: 'encrypt_data', args: { name: 'orders', plaintext: MESSAGE } },
      { op: 'encrypt_data', args: { name: 'orders', plaintext: MESSAGE, context } },
    ]);
    okOf(made);
    t.match(okOf(sealed).data, { ciphertext: /^vault:v1:/, key_version: 1 });
    const [opened, openedWith, wrongContext, batch] = await hvac.run([
      { op: 'decrypt_data', args: { name: 'orders', ciphertext: okOf(sealed).data.ciphertext } },
      { op: 'decrypt_data', args: { name: 'orders', ciphertext: okOf(withContext).data.ciphertext, context } },
      {
        op: 'decrypt_data',
        args: { name: 'orders', ciphertext: okOf(withContext).data.ciphertext, context: b64('x') },
      },
      {
        op: 'encrypt_data',
        args: {
          name: 'orders',
          plaintext: '',
          batch_input: [
            { plaintext: b64('one'), reference: 'a' },
            { plaintext: b64('two'), context, reference: 'b' },
          ],
        },
      },
    ]);
    t.equal(okOf(opened).data.plaintext, MESSAGE);
    t.equal(okOf(openedWith).data.plaintext, MESSAGE);
    t.match(errorOf(wrongContext), { exception: 'InvalidRequest' }, 'another context: 400');
    const results = okOf(batch).data.batch_results;
    t.match(results, [
      { reference: 'a', ciphertext: /^vault:v1:/ },
      { reference: 'b', ciphertext: /^vault:v1:/ },
    ]);
    const [batchOpened, partly] = await hvac.run([
      {
        op: 'decrypt_data',
        args: {
          name: 'orders',
          ciphertext: '',
          batch_input: [{ ciphertext: results[0].ciphertext }, { ciphertext: results[1].ciphertext, context }],
        },
      },
      {
        op: 'decrypt_data',
        args: {
          name: 'orders',
          ciphertext: '',
          batch_input: [{ ciphertext: results[0].ciphertext }, { ciphertext: 'vault:v1:AAAA' }],
        },
      },
    ]);
    t.same(
      okOf(batchOpened).data.batch_results.map((r: any) => r.plaintext),
      [b64('one'), b64('two')],
    );
    t.match(errorOf(partly), { exception: 'InvalidRequest' }, 'a batch with a failed item is 400, as Vault');

    const [rotated, newer, rewrapped] = await hvac.run([
      { op: 'rotate_key', args: { name: 'orders' } },
      { op: 'encrypt_data', args: { name: 'orders', plaintext: MESSAGE } },
      { op: 'rewrap_data', args: { name: 'orders', ciphertext: okOf(sealed).data.ciphertext } },
    ]);
    t.equal(okOf(rotated).data.latest_version, 2);
    t.same(Object.keys(okOf(rotated).data.keys), ['1', '2']);
    t.match(okOf(newer).data.ciphertext, /^vault:v2:/);
    t.match(okOf(rewrapped).data, { ciphertext: /^vault:v2:/, key_version: 2 });
    const [oldStill, rewrappedOpened] = await hvac.run([
      { op: 'decrypt_data', args: { name: 'orders', ciphertext: okOf(sealed).data.ciphertext } },
      { op: 'decrypt_data', args: { name: 'orders', ciphertext: okOf(rewrapped).data.ciphertext } },
    ]);
    t.equal(okOf(oldStill).data.plaintext, MESSAGE, 'the version 1 ciphertext still decrypts after the rotation');
    t.equal(okOf(rewrappedOpened).data.plaintext, MESSAGE);

    const [floor, trimmed, gone, kept, tooFar] = await hvac.run([
      { op: 'update_key_configuration', args: { name: 'orders', min_decryption_version: 2 } },
      { op: 'trim_key', args: { name: 'orders', min_version: 2 } },
      { op: 'decrypt_data', args: { name: 'orders', ciphertext: okOf(sealed).data.ciphertext } },
      { op: 'decrypt_data', args: { name: 'orders', ciphertext: okOf(rewrapped).data.ciphertext } },
      { op: 'trim_key', args: { name: 'orders', min_version: 3 } },
    ]);
    t.match(errorOf(floor), { exception: 'InvalidRequest' }, 'min_decryption_version moves only with trim here');
    t.match(okOf(trimmed).data, { min_available_version: 2, min_decryption_version: 2, keys: { 2: Number } });
    t.same(Object.keys(okOf(trimmed).data.keys), ['2'], 'version 1 is gone');
    t.match(errorOf(gone), { exception: 'InvalidRequest' }, 'a version-1 ciphertext no longer decrypts');
    t.equal(okOf(kept).data.plaintext, MESSAGE, 'the rewrapped one does');
    t.match(errorOf(tooFar), { exception: 'InvalidRequest' }, 'trimming above the latest version is refused');
  });

  t.test('data keys, plaintext and wrapped', async (t) => {
    const [made, plain, wrapped, bad] = await hvac.run([
      { op: 'create_key', args: { name: 'envelopes' } },
      { op: 'generate_data_key', args: { name: 'envelopes', key_type: 'plaintext', bits: 128 } },
      { op: 'generate_data_key', args: { name: 'envelopes', key_type: 'wrapped', context: b64('c') } },
      { op: 'generate_data_key', args: { name: 'envelopes', key_type: 'plaintext', bits: 512 } },
    ]);
    okOf(made);
    const data = okOf(plain).data;
    t.equal(Buffer.from(data.plaintext, 'base64').length, 16);
    t.equal(okOf(wrapped).data.plaintext, undefined, 'wrapped: no plaintext');
    t.match(errorOf(bad), { exception: 'InvalidRequest' });
    const [opened, openedWrapped] = await hvac.run([
      { op: 'decrypt_data', args: { name: 'envelopes', ciphertext: data.ciphertext } },
      { op: 'decrypt_data', args: { name: 'envelopes', ciphertext: okOf(wrapped).data.ciphertext, context: b64('c') } },
    ]);
    t.equal(okOf(opened).data.plaintext, data.plaintext, 'the data key decrypts to its plaintext');
    t.equal(Buffer.from(okOf(openedWrapped).data.plaintext, 'base64').length, 32);
  });

  t.test('sign and verify: each hash, padding and marshaling, checked by node:crypto', async (t) => {
    const message = Buffer.from('sign me');
    const input = message.toString('base64');
    const [ec, rsa, ed] = await hvac.run([
      { op: 'create_key', args: { name: 'sig-ec', key_type: 'ecdsa-p384' } },
      { op: 'create_key', args: { name: 'sig-rsa', key_type: 'rsa-2048' } },
      { op: 'create_key', args: { name: 'sig-ed', key_type: 'ed25519' } },
    ]);
    const ecPem = okOf(ec).data.keys['1'].public_key;
    const rsaPem = okOf(rsa).data.keys['1'].public_key;
    const edRaw = Buffer.from(okOf(ed).data.keys['1'].public_key, 'base64');
    const edKey = createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: edRaw.toString('base64url') },
      format: 'jwk',
    });
    const cases = [
      { name: 'sig-ec', args: {}, check: (s: Buffer) => verify('sha256', message, ecPem, s) },
      {
        name: 'sig-ec',
        args: { hash_algorithm: 'sha2-384', marshaling_algorithm: 'jws' },
        check: (s: Buffer) => verify('sha384', message, { key: ecPem, dsaEncoding: 'ieee-p1363' }, s),
        jws: true,
      },
      {
        name: 'sig-ec',
        args: { hash_algorithm: 'sha2-512', prehashed: true },
        input: createHash('sha512').update(message).digest('base64'),
        check: (s: Buffer) => verify('sha512', message, ecPem, s),
      },
      {
        name: 'sig-rsa',
        args: { signature_algorithm: 'pss' },
        check: (s: Buffer) => verify('sha256', message, { key: rsaPem, padding: 6, saltLength: 32 }, s),
      },
      {
        name: 'sig-rsa',
        args: { signature_algorithm: 'pkcs1v15', hash_algorithm: 'sha2-512' },
        check: (s: Buffer) => verify('sha512', message, { key: rsaPem, padding: 1 }, s),
      },
      {
        name: 'sig-rsa',
        args: { signature_algorithm: 'pkcs1v15', marshaling_algorithm: 'jws' },
        check: (s: Buffer) => verify('sha256', message, { key: rsaPem, padding: 1 }, s),
        jws: true,
      },
      { name: 'sig-ed', args: {}, check: (s: Buffer) => verify(null, message, edKey, s) },
    ];
    const signed = await hvac.run(
      cases.map((c) => ({ op: 'sign_data', args: { name: c.name, hash_input: c.input ?? input, ...c.args } })),
    );
    const verified = await hvac.run(
      cases.map((c, i) => ({
        op: 'verify_signed_data',
        args: { name: c.name, hash_input: c.input ?? input, signature: okOf(signed[i]).data.signature, ...c.args },
      })),
    );
    for (const [i, c] of cases.entries()) {
      const label = `${c.name} ${JSON.stringify(c.args)}`;
      const signature = okOf(signed[i]).data.signature as string;
      t.match(signature, /^vault:v1:/, label);
      const body = signature.slice('vault:v1:'.length);
      t.ok(c.check(Buffer.from(body, c.jws ? 'base64url' : 'base64')), `${label}: node:crypto verifies it`);
      t.equal(okOf(verified[i]).data.valid, true, `${label}: verify says valid`);
    }
    const [tampered, unknownHash, batch] = await hvac.run([
      {
        op: 'verify_signed_data',
        args: { name: 'sig-ed', hash_input: b64('other'), signature: okOf(signed[6]).data.signature },
      },
      { op: 'sign_data', args: { name: 'sig-ec', hash_input: input, hash_algorithm: 'sha2-224' } },
      {
        op: 'write_path',
        args: {
          path: '/v1/transit/sign/sig-ec',
          body: { batch_input: [{ input }, { input: b64('two'), reference: 'r2' }] },
        },
      },
    ]);
    t.equal(okOf(tampered).data.valid, false, 'another message: valid false');
    t.match(errorOf(unknownHash), { exception: 'InvalidRequest' }, 'sha2-224 is not offered');
    t.match(okOf(batch).data.batch_results, [
      { signature: /^vault:v1:/ },
      { signature: /^vault:v1:/, reference: 'r2' },
    ]);
  });

  t.test('hmac and its verification; export; random bytes', async (t) => {
    const [made, mac, wrongAlg, exportable] = await hvac.run([
      createDirect('macs', 'hmac'),
      { op: 'generate_hmac', args: { name: 'macs', hash_input: MESSAGE } },
      { op: 'generate_hmac', args: { name: 'macs', hash_input: MESSAGE, algorithm: 'sha2-512' } },
      { op: 'create_key', args: { name: 'leaving', exportable: true } },
    ]);
    okOf(made);
    t.match(okOf(mac).data.hmac, /^vault:v1:/);
    t.match(errorOf(wrongAlg), { exception: 'InvalidRequest' }, "an HMAC key's own hash only");
    okOf(exportable);
    const [good, bad, exported, notExportable, pub, random] = await hvac.run([
      { op: 'verify_signed_data', args: { name: 'macs', hash_input: MESSAGE, hmac: okOf(mac).data.hmac } },
      { op: 'verify_signed_data', args: { name: 'macs', hash_input: b64('x'), hmac: okOf(mac).data.hmac } },
      { op: 'export_key', args: { name: 'leaving', key_type: 'encryption-key' } },
      { op: 'export_key', args: { name: 'macs', key_type: 'hmac-key' } },
      { op: 'read_path', args: { path: '/v1/transit/export/public-key/sig-ec' } },
      { op: 'generate_random_bytes', args: { n_bytes: 48, output_format: 'hex' } },
    ]);
    t.equal(okOf(good).data.valid, true);
    t.equal(okOf(bad).data.valid, false);
    t.equal(Buffer.from(okOf(exported).data.keys['1'], 'base64').length, 32, 'the AES key, as Vault exports it');
    t.match(errorOf(notExportable), { exception: 'InvalidRequest' }, 'a key not exportable is refused');
    t.match(okOf(pub).data.keys['1'], /^-----BEGIN PUBLIC KEY-----/);
    t.match(okOf(random).data.random_bytes, /^[0-9a-f]{96}$/);
  });

  t.test('config and delete: deletion_allowed first; the alias goes with the key', async (t) => {
    const [made, refused, config, deleted, read] = await hvac.run([
      { op: 'create_key', args: { name: 'short-lived' } },
      { op: 'delete_key', args: { name: 'short-lived' } },
      { op: 'update_key_configuration', args: { name: 'short-lived', deletion_allowed: true } },
      { op: 'delete_key', args: { name: 'short-lived' } },
      { op: 'read_key', args: { name: 'short-lived' } },
    ]);
    const id = okOf(made).data['svc.key_id'];
    t.match(errorOf(refused), { exception: 'InvalidRequest', errors: [/deletion is not allowed/] });
    t.equal(okOf(config).data.deletion_allowed, true);
    t.same(okOf(deleted), { status: 204 });
    t.match(errorOf(read), { exception: 'InvalidPath' }, 'read after delete: 404');
    t.equal((await rest.get(`/v1/keys/${id}`)).body.state, 'Destroyed');
  });

  t.test("Vault's refusals: bad token, another owner's policy, bad input", async (t) => {
    const stranger = await hvacClient(t, svc.url, 'not-a-token');
    const [denied] = await stranger!.run([{ op: 'read_key', args: { name: 'orders' } }]);
    t.match(errorOf(denied), { exception: 'Forbidden', errors: [/^permission denied/] });
    const [badType, badName, missing, noKey] = await hvac.run([
      { op: 'create_key', args: { name: 'x1', key_type: 'chacha20-poly1305' } },
      { op: 'create_key', args: { name: 'has.dot' } },
      { op: 'read_key', args: { name: 'never-made' } },
      { op: 'decrypt_data', args: { name: 'never-made', ciphertext: 'vault:v1:AAAA' } },
    ]);
    t.match(errorOf(badType), { exception: 'InvalidRequest', errors: [/unknown key type/] });
    t.match(errorOf(badName), { exception: 'InvalidRequest' });
    t.match(errorOf(missing), { exception: 'InvalidPath' }, 'reading a key that does not exist: 404');
    t.match(errorOf(noKey), { exception: 'InvalidRequest' }, 'a crypto path naming no key: 400, as Vault');
  });
});
