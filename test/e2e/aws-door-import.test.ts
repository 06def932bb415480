import { createDecipheriv, createHmac, createPublicKey, generateKeyPairSync, randomBytes, verify } from 'node:crypto';
import {
  CreateKeyCommand,
  DescribeKeyCommand,
  EncryptCommand,
  GetParametersForImportCommand,
  ImportKeyMaterialCommand,
  SignCommand,
} from '@aws-sdk/client-kms';
import t from 'tap';
import { wrapKeyMaterial } from '../../clients/sdk/index.ts';
import { accessKeyFor, kmsClient, failure } from '../helpers/aws-kms.ts';
import { importParameters } from '../helpers/byok.ts';
import { startTestService } from '../helpers/service.ts';

/**
 * Bring your own key the AWS way: CreateKey with Origin EXTERNAL makes a key without material
 * (PendingImport), GetParametersForImport gives the wrapping key and token, ImportKeyMaterial brings the
 * material and the key is Enabled. Checked from outside: a ciphertext the door makes opens under the
 * AES key the test imported, and a signature verifies under the RSA key it imported.
 */

/** The CiphertextBlob opened with the AES key itself: key id (16 bytes), then format, version, IV, tag, ciphertext. */
function openBlob(blob: Uint8Array, keyId: string, secret: Buffer): Buffer {
  const bytes = Buffer.from(blob);
  const envelope = bytes.subarray(17);
  const version = envelope.readUInt32BE(1);
  const decipher = createDecipheriv('aes-256-gcm', secret, envelope.subarray(5, 17));
  decipher.setAAD(Buffer.from(`svc-kms/v1|${keyId}|${version}|[]`));
  decipher.setAuthTag(envelope.subarray(17, 33));
  return Buffer.concat([decipher.update(envelope.subarray(33)), decipher.final()]);
}

t.test('import through the AWS door', async (t) => {
  const svc = await startTestService();
  t.teardown(() => svc.stop());
  const kms = kmsClient(svc, await accessKeyFor(svc, 'alice'));
  const rest = svc.client('alice');

  /** GetParametersForImport, wrap, ImportKeyMaterial, as an AWS client does it. */
  async function importInto(keyId: string, material: Buffer) {
    const params = await kms.send(
      new GetParametersForImportCommand({
        KeyId: keyId,
        WrappingAlgorithm: 'RSA_AES_KEY_WRAP_SHA_256',
        WrappingKeySpec: 'RSA_3072',
      }),
    );
    t.type(params.ParametersValidTo, Date);
    const pem = createPublicKey({ key: Buffer.from(params.PublicKey!), format: 'der', type: 'spki' })
      .export({ type: 'spki', format: 'pem' })
      .toString();
    const wrapped = wrapKeyMaterial(pem, material);
    await kms.send(
      new ImportKeyMaterialCommand({ KeyId: keyId, ImportToken: params.ImportToken, EncryptedKeyMaterial: wrapped }),
    );
    return { params, wrapped };
  }

  t.test('an AES key: PendingImport, then Enabled with exactly the imported material', async (t) => {
    const made = (await kms.send(new CreateKeyCommand({ Origin: 'EXTERNAL' }))).KeyMetadata!;
    t.match(made, { KeyState: 'PendingImport', Origin: 'EXTERNAL', Enabled: false });
    t.match(await failure(kms.send(new EncryptCommand({ KeyId: made.KeyId, Plaintext: Buffer.from('x') }))), {
      name: 'KMSInvalidStateException',
    });
    t.match((await rest.post(`/v1/keys/${made.KeyId}/activate`)).body, {
      error: 'IllegalOperation',
      message: /awaits its imported material/,
    });
    const secret = randomBytes(32);
    const { params, wrapped } = await importInto(made.KeyId!, secret);
    t.match((await kms.send(new DescribeKeyCommand({ KeyId: made.KeyId }))).KeyMetadata, {
      KeyState: 'Enabled',
      Origin: 'EXTERNAL',
      ExpirationModel: 'KEY_MATERIAL_DOES_NOT_EXPIRE',
    });
    const sealed = await kms.send(
      new EncryptCommand({ KeyId: made.KeyId, Plaintext: Buffer.from('brought my own key') }),
    );
    t.equal(
      openBlob(sealed.CiphertextBlob!, made.KeyId!, secret).toString(),
      'brought my own key',
      'the imported key encrypted it',
    );
    t.match(
      await failure(
        kms.send(
          new ImportKeyMaterialCommand({
            KeyId: made.KeyId,
            ImportToken: params.ImportToken,
            EncryptedKeyMaterial: wrapped,
          }),
        ),
      ),
      { name: 'KMSInvalidStateException', message: /has its material/ },
      'a key imports once',
    );
    t.match(
      await failure(
        kms.send(
          new GetParametersForImportCommand({
            KeyId: made.KeyId,
            WrappingAlgorithm: 'RSA_AES_KEY_WRAP_SHA_256',
            WrappingKeySpec: 'RSA_3072',
          }),
        ),
      ),
      { name: 'KMSInvalidStateException' },
    );
  });

  t.test('an RSA signing key: the signature verifies under the public key the test holds', async (t) => {
    const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const made = (
      await kms.send(new CreateKeyCommand({ Origin: 'EXTERNAL', KeySpec: 'RSA_2048', KeyUsage: 'SIGN_VERIFY' }))
    ).KeyMetadata!;
    await importInto(made.KeyId!, pair.privateKey.export({ type: 'pkcs8', format: 'der' }));
    const message = Buffer.from('signed with my own key');
    const signed = await kms.send(
      new SignCommand({ KeyId: made.KeyId, Message: message, SigningAlgorithm: 'RSASSA_PKCS1_V1_5_SHA_256' }),
    );
    t.ok(
      verify('sha256', message, pair.publicKey, Buffer.from(signed.Signature!)),
      'verified with the local public key',
    );
  });

  t.test('refusals: a token for another key type, material that does not fit, an unsupported wrapping', async (t) => {
    const made = (await kms.send(new CreateKeyCommand({ Origin: 'EXTERNAL' }))).KeyMetadata!;
    const hmacParams = await importParameters(rest, { algorithm: 'HMAC', sizeBits: 256 });
    const wrapped = wrapKeyMaterial(hmacParams.wrappingPublicKeyPem, randomBytes(32));
    t.match(
      await failure(
        kms.send(
          new ImportKeyMaterialCommand({
            KeyId: made.KeyId,
            ImportToken: Buffer.from(hmacParams.importToken),
            EncryptedKeyMaterial: wrapped,
          }),
        ),
      ),
      { name: 'ValidationException', message: /issued for HMAC\/256/ },
    );
    const params = await kms.send(
      new GetParametersForImportCommand({
        KeyId: made.KeyId,
        WrappingAlgorithm: 'RSA_AES_KEY_WRAP_SHA_256',
        WrappingKeySpec: 'RSA_3072',
      }),
    );
    const pem = createPublicKey({ key: Buffer.from(params.PublicKey!), format: 'der', type: 'spki' })
      .export({ type: 'spki', format: 'pem' })
      .toString();
    t.match(
      await failure(
        kms.send(
          new ImportKeyMaterialCommand({
            KeyId: made.KeyId,
            ImportToken: params.ImportToken,
            EncryptedKeyMaterial: wrapKeyMaterial(pem, randomBytes(16)),
          }),
        ),
      ),
      { name: 'ValidationException' },
      '16 bytes for an AES-256 key',
    );
    t.match(
      await failure(
        kms.send(
          new GetParametersForImportCommand({
            KeyId: made.KeyId,
            WrappingAlgorithm: 'RSAES_OAEP_SHA_1',
            WrappingKeySpec: 'RSA_2048',
          }),
        ),
      ),
      { name: 'ValidationException', message: /RSA_AES_KEY_WRAP_SHA_256/ },
    );
    t.match(
      (await rest.get(`/v1/keys/${made.KeyId}`)).body,
      { awaitingMaterial: true, state: 'PreActive', origin: 'imported' },
      'still awaiting',
    );
  });

  t.test('over REST: awaitMaterial, then POST /v1/keys/{id}/import', async (t) => {
    const created = await rest.post('/v1/keys', { spec: { algorithm: 'HMAC', sizeBits: 256 }, awaitMaterial: true });
    t.equal(created.status, 201);
    t.match(created.body, { awaitingMaterial: true, origin: 'imported', state: 'PreActive' });
    const id = created.body.id;
    t.match((await rest.post(`/v1/keys/${id}/sign`, { messageBase64: 'aGk=' })).body, { error: 'IllegalOperation' });
    t.match((await rest.post('/v1/keys', { spec: { algorithm: 'AES' }, awaitMaterial: true, activate: true })).body, {
      error: 'InvalidField',
    });
    const params = await importParameters(rest, { algorithm: 'HMAC', sizeBits: 256 });
    const material = randomBytes(32);
    const imported = await rest.post(`/v1/keys/${id}/import`, {
      importToken: params.importToken,
      wrappedMaterialBase64: Buffer.from(wrapKeyMaterial(params.wrappingPublicKeyPem, material)).toString('base64'),
      activate: true,
    });
    t.equal(imported.status, 200, JSON.stringify(imported.body));
    t.match(imported.body, { state: 'Active', origin: 'imported' });
    t.notOk('awaitingMaterial' in imported.body);
    const signed = await rest.post(`/v1/keys/${id}/sign`, { messageBase64: Buffer.from('m').toString('base64') });
    t.equal(
      signed.body.signatureBase64,
      createHmac('sha256', material).update('m').digest('base64'),
      'the imported HMAC key',
    );
  });
});
