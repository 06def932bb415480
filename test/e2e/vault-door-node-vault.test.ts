import { DecryptCommand, EncryptCommand } from '@aws-sdk/client-kms';
import nodeVault from 'node-vault';
import t from 'tap';
import { kmsClient } from '../helpers/aws-kms.ts';
import { ApiClient } from '../helpers/client.ts';
import { startTestService } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

/**
 * npm's node-vault against the transit door (it writes with PUT and reads with GET, as Vault's own CLI),
 * and one ciphertext across doors: made over transit, it decrypts over REST and the AWS door, and an
 * AWS or REST ciphertext decrypts over transit.
 */

const b64 = (text: string) => Buffer.from(text).toString('base64');

t.test('node-vault and the other doors', async (t) => {
  const svc = await startTestService({
    SVC_AUTH_KIND: 'hmac',
    SVC_AUTH_HMAC_SECRET: TEST_SECRET,
    SVC_RISK_ENABLED: 'false',
  });
  t.teardown(() => svc.stop());
  const token = await mintToken({ sub: 'carol', svc_kind: 'human' }, { ttlSeconds: 3600 });
  const vault = nodeVault({ apiVersion: 'v1', endpoint: svc.url, token, noCustomHTTPVerbs: true });
  const rest = new ApiClient(svc.url, { Authorization: `Bearer ${token}` });

  t.test('node-vault: keys, encryption, rotation, signatures, config and delete', async (t) => {
    await vault.transitCreateKey({ name: 'nv' });
    const read = await vault.transitReadKey({ name: 'nv' });
    t.match(read.data, { name: 'nv', type: 'aes256-gcm96', latest_version: 1 });
    const sealed = await vault.encryptData({ name: 'nv', plaintext: b64('from node-vault'), context: b64('ctx') });
    t.match(sealed.data.ciphertext, /^vault:v1:/);
    await vault.write('transit/keys/nv/rotate', {});
    const opened = await vault.decryptData({ name: 'nv', ciphertext: sealed.data.ciphertext, context: b64('ctx') });
    t.equal(opened.data.plaintext, b64('from node-vault'), 'the old version still decrypts after the rotation');
    const rewrapped = await vault.rewrapData({ name: 'nv', ciphertext: sealed.data.ciphertext, context: b64('ctx') });
    t.match(rewrapped.data.ciphertext, /^vault:v2:/);
    const listed = await vault.read('transit/keys?list=true');
    t.ok(listed.data.keys.includes('nv'));

    await vault.write('transit/keys/nv-sig', { type: 'ed25519' });
    const signed = await vault.write('transit/sign/nv-sig', { input: b64('doc') });
    const verified = await vault.write('transit/verify/nv-sig', {
      input: b64('doc'),
      signature: signed.data.signature,
    });
    t.equal(verified.data.valid, true);
    const mac = await vault.write('transit/keys/nv-mac', { type: 'hmac', key_size: 64 });
    t.match(mac.data, { type: 'hmac' });
    const hmac = await vault.write('transit/hmac/nv-mac/sha2-512', { input: b64('doc') });
    const hmacOk = await vault.write('transit/verify/nv-mac/sha2-512', { input: b64('doc'), hmac: hmac.data.hmac });
    t.equal(hmacOk.data.valid, true);

    const status = (promise: Promise<unknown>) =>
      promise.then(
        () => 'answered',
        (err: { response?: { statusCode?: number } }) => err.response?.statusCode,
      );
    t.equal(await status(vault.transitDeleteKey({ name: 'nv' })), 400, 'delete before deletion_allowed: 400');
    await vault.write('transit/keys/nv/config', { deletion_allowed: 'true' });
    await vault.transitDeleteKey({ name: 'nv' });
    t.equal(await status(vault.transitReadKey({ name: 'nv' })), 404, 'read after delete: 404');
  });

  t.test('a ciphertext made over transit decrypts over REST and the AWS door, and back', async (t) => {
    await vault.transitCreateKey({ name: 'shared' });
    const key = (await rest.get(`/v1/keys/${encodeURIComponent('alias/shared')}`)).body;
    const sealed = (await vault.encryptData({ name: 'shared', plaintext: b64('across doors') })).data.ciphertext;
    const body = sealed.replace(/^vault:v1:/, '');

    const overRest = await rest.post(`/v1/keys/${key.id}/decrypt`, { ciphertextBase64: body });
    t.equal(overRest.body.plaintextBase64, b64('across doors'), 'REST decrypts the transit ciphertext');

    const accessKey = (await rest.post('/v1/access-keys', {})).body;
    const kms = kmsClient(svc, accessKey);
    const overAws = await kms.send(
      new DecryptCommand({ KeyId: 'alias/shared', CiphertextBlob: Buffer.from(body, 'base64') }),
    );
    t.equal(Buffer.from(overAws.Plaintext!).toString(), 'across doors', 'the AWS door decrypts it');

    const fromAws = await kms.send(new EncryptCommand({ KeyId: 'alias/shared', Plaintext: Buffer.from('from AWS') }));
    const viaTransit = await vault.decryptData({
      name: 'shared',
      ciphertext: `vault:v1:${Buffer.from(fromAws.CiphertextBlob!).toString('base64')}`,
    });
    t.equal(viaTransit.data.plaintext, b64('from AWS'), "transit decrypts the AWS door's ciphertext");

    const context = b64('bound');
    const fromRest = await rest.post(`/v1/keys/${key.id}/encrypt`, {
      plaintextBase64: b64('from REST'),
      context: { 'vault.context': context },
    });
    const restViaTransit = await vault.decryptData({
      name: 'shared',
      ciphertext: `vault:v1:${fromRest.body.ciphertextBase64}`,
      context,
    });
    t.equal(restViaTransit.data.plaintext, b64('from REST'), 'a REST context vault.context is transit context');
  });
});
