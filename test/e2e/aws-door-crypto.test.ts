import { createHash } from 'node:crypto';
import {
  CreateKeyCommand,
  DecryptCommand,
  EncryptCommand,
  GenerateDataKeyCommand,
  GenerateDataKeyWithoutPlaintextCommand,
  GenerateMacCommand,
  GenerateRandomCommand,
  GetPublicKeyCommand,
  ReEncryptCommand,
  SignCommand,
  VerifyCommand,
  VerifyMacCommand,
} from '@aws-sdk/client-kms';
import t from 'tap';
import { accessKeyFor, kmsClient, opensslVerifies, failure } from '../helpers/aws-kms.ts';
import { startTestService } from '../helpers/service.ts';

/**
 * Cryptography through the AWS door with the AWS SDK: ciphertexts that name their key, data keys that
 * REST opens, re-encryption, random bytes, and RSA, ECDSA, Ed25519 and HMAC signatures over messages and
 * digests, every signature checked by OpenSSL from the public key GetPublicKey answers.
 */

const b64 = (bytes: Uint8Array | undefined) => Buffer.from(bytes!).toString('base64');

t.test('cryptography over the AWS door', async (t) => {
  const svc = await startTestService();
  t.teardown(() => svc.stop());
  const kms = kmsClient(svc, await accessKeyFor(svc, 'alice'));
  const rest = svc.client('alice');
  const aes = (await kms.send(new CreateKeyCommand({}))).KeyMetadata!;
  const other = (await kms.send(new CreateKeyCommand({}))).KeyMetadata!;

  t.test('Encrypt/Decrypt with a context; Decrypt needs no KeyId; a wrong context or KeyId is refused', async (t) => {
    const context = { tenant: 'a', purpose: 'test' };
    const sealed = await kms.send(
      new EncryptCommand({ KeyId: aes.KeyId, Plaintext: Buffer.from('secret'), EncryptionContext: context }),
    );
    t.match(sealed, { KeyId: aes.Arn, EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' });
    const opened = await kms.send(
      new DecryptCommand({ CiphertextBlob: sealed.CiphertextBlob, EncryptionContext: context }),
    );
    t.equal(Buffer.from(opened.Plaintext!).toString(), 'secret');
    t.equal(opened.KeyId, aes.Arn);
    t.match(
      await failure(
        kms.send(new DecryptCommand({ CiphertextBlob: sealed.CiphertextBlob, EncryptionContext: { tenant: 'b' } })),
      ),
      {
        name: 'InvalidCiphertextException',
      },
    );
    t.match(
      await failure(
        kms.send(
          new DecryptCommand({ CiphertextBlob: sealed.CiphertextBlob, KeyId: other.KeyId, EncryptionContext: context }),
        ),
      ),
      { name: 'IncorrectKeyException' },
    );
    const tampered = Buffer.from(sealed.CiphertextBlob!);
    tampered[tampered.length - 1]! ^= 1;
    t.match(await failure(kms.send(new DecryptCommand({ CiphertextBlob: tampered, EncryptionContext: context }))), {
      name: 'InvalidCiphertextException',
    });
  });

  t.test('a ciphertext made over REST decrypts over the AWS door with its KeyId, and the reverse', async (t) => {
    const made = await rest.post(`/v1/keys/${aes.KeyId}/encrypt`, {
      plaintextBase64: Buffer.from('rest').toString('base64'),
    });
    const viaAws = await kms.send(
      new DecryptCommand({ CiphertextBlob: Buffer.from(made.body.ciphertextBase64, 'base64'), KeyId: aes.KeyId }),
    );
    t.equal(Buffer.from(viaAws.Plaintext!).toString(), 'rest');
    t.match(
      await failure(
        kms.send(new DecryptCommand({ CiphertextBlob: Buffer.from(made.body.ciphertextBase64, 'base64') })),
      ),
      {
        name: 'InvalidCiphertextException',
        message: /names no key/,
      },
    );
    const sealed = await kms.send(new EncryptCommand({ KeyId: aes.KeyId, Plaintext: Buffer.from('aws') }));
    const viaRest = await rest.post(`/v1/keys/${aes.KeyId}/decrypt`, { ciphertextBase64: b64(sealed.CiphertextBlob) });
    t.equal(Buffer.from(viaRest.body.plaintextBase64, 'base64').toString(), 'aws');
    const wrongKey = await rest.post(`/v1/keys/${other.KeyId}/decrypt`, {
      ciphertextBase64: b64(sealed.CiphertextBlob),
    });
    t.match(
      wrongKey,
      { status: 400, body: { error: 'DecryptionFailed' } },
      'REST refuses a ciphertext naming another key',
    );
  });

  t.test('GenerateDataKey: the plaintext key is what its CiphertextBlob decrypts to, over AWS and REST', async (t) => {
    const made = await kms.send(
      new GenerateDataKeyCommand({ KeyId: aes.KeyId, KeySpec: 'AES_256', EncryptionContext: { f: 'x' } }),
    );
    t.equal(made.Plaintext!.length, 32);
    t.equal(made.KeyId, aes.Arn);
    const opened = await kms.send(
      new DecryptCommand({ CiphertextBlob: made.CiphertextBlob, EncryptionContext: { f: 'x' } }),
    );
    t.same(Buffer.from(opened.Plaintext!), Buffer.from(made.Plaintext!));
    const viaRest = await rest.post(`/v1/keys/${aes.KeyId}/decrypt`, {
      ciphertextBase64: b64(made.CiphertextBlob),
      context: { f: 'x' },
    });
    t.equal(viaRest.body.plaintextBase64, b64(made.Plaintext));
    const small = await kms.send(new GenerateDataKeyCommand({ KeyId: aes.KeyId, NumberOfBytes: 16 }));
    t.equal(small.Plaintext!.length, 16);
    const hidden = await kms.send(new GenerateDataKeyWithoutPlaintextCommand({ KeyId: aes.KeyId, KeySpec: 'AES_128' }));
    t.notOk('Plaintext' in hidden, 'no plaintext key in the answer');
    t.equal((await kms.send(new DecryptCommand({ CiphertextBlob: hidden.CiphertextBlob }))).Plaintext!.length, 16);
    t.match(await failure(kms.send(new GenerateDataKeyCommand({ KeyId: aes.KeyId, NumberOfBytes: 100 }))), {
      name: 'ValidationException',
    });
    t.match(await failure(kms.send(new GenerateDataKeyCommand({ KeyId: aes.KeyId }))), { name: 'ValidationException' });
  });

  t.test('ReEncrypt moves a ciphertext to another key without the plaintext leaving the service', async (t) => {
    const sealed = await kms.send(
      new EncryptCommand({ KeyId: aes.KeyId, Plaintext: Buffer.from('move me'), EncryptionContext: { a: '1' } }),
    );
    const moved = await kms.send(
      new ReEncryptCommand({
        CiphertextBlob: sealed.CiphertextBlob,
        SourceEncryptionContext: { a: '1' },
        DestinationKeyId: other.Arn,
      }),
    );
    t.match(moved, { SourceKeyId: aes.Arn, KeyId: other.Arn, DestinationEncryptionAlgorithm: 'SYMMETRIC_DEFAULT' });
    const opened = await kms.send(new DecryptCommand({ CiphertextBlob: moved.CiphertextBlob }));
    t.equal(Buffer.from(opened.Plaintext!).toString(), 'move me');
    t.equal(opened.KeyId, other.Arn);
  });

  t.test('GenerateRandom: 1..1024 bytes', async (t) => {
    const a = await kms.send(new GenerateRandomCommand({ NumberOfBytes: 64 }));
    const b = await kms.send(new GenerateRandomCommand({ NumberOfBytes: 64 }));
    t.equal(a.Plaintext!.length, 64);
    t.not(b64(a.Plaintext), b64(b.Plaintext));
    t.match(await failure(kms.send(new GenerateRandomCommand({ NumberOfBytes: 1025 }))), {
      name: 'ValidationException',
    });
  });

  t.test('signatures over the message (RAW) and its digest (DIGEST), each checked by OpenSSL', async (t) => {
    const message = Buffer.from('release v1.2.3 of the firmware');
    const cases: Array<[string, string, string, boolean]> = [
      ['RSA_2048', 'RSASSA_PSS_SHA_256', 'sha256', true],
      ['RSA_2048', 'RSASSA_PSS_SHA_512', 'sha512', true],
      ['RSA_2048', 'RSASSA_PKCS1_V1_5_SHA_256', 'sha256', false],
      ['RSA_2048', 'RSASSA_PKCS1_V1_5_SHA_384', 'sha384', false],
      ['ECC_NIST_P256', 'ECDSA_SHA_256', 'sha256', false],
      ['ECC_NIST_P384', 'ECDSA_SHA_384', 'sha384', false],
      ['ECC_NIST_P521', 'ECDSA_SHA_512', 'sha512', false],
      ['ECC_SECG_P256K1', 'ECDSA_SHA_256', 'sha256', false],
    ];
    for (const [KeySpec, SigningAlgorithm, hash, pss] of cases) {
      const key = (await kms.send(new CreateKeyCommand({ KeySpec: KeySpec as never, KeyUsage: 'SIGN_VERIFY' })))
        .KeyMetadata!;
      const publicKey = (await kms.send(new GetPublicKeyCommand({ KeyId: key.KeyId }))).PublicKey!;
      const digest = createHash(hash).update(message).digest();
      const raw = await kms.send(
        new SignCommand({ KeyId: key.KeyId, Message: message, SigningAlgorithm: SigningAlgorithm as never }),
      );
      t.equal(raw.SigningAlgorithm, SigningAlgorithm);
      const overDigest = await kms.send(
        new SignCommand({
          KeyId: key.Arn,
          Message: digest,
          MessageType: 'DIGEST',
          SigningAlgorithm: SigningAlgorithm as never,
        }),
      );
      const name = `${KeySpec} ${SigningAlgorithm}`;
      t.ok(
        opensslVerifies(publicKey, raw.Signature!, message, { hash, pss }),
        `${name}: OpenSSL verifies RAW over the message`,
      );
      t.ok(
        opensslVerifies(publicKey, overDigest.Signature!, digest, { hash, pss, digest: true }),
        `${name}: OpenSSL verifies DIGEST over the digest`,
      );
      t.ok(
        opensslVerifies(publicKey, overDigest.Signature!, message, { hash, pss }),
        `${name}: a DIGEST signature is the message's`,
      );
      const verified = await kms.send(
        new VerifyCommand({
          KeyId: key.KeyId,
          Message: message,
          Signature: overDigest.Signature,
          SigningAlgorithm: SigningAlgorithm as never,
        }),
      );
      t.match(verified, { SignatureValid: true, KeyId: key.Arn });
      const changed = Buffer.from(message);
      changed[0]! ^= 1;
      t.match(
        await failure(
          kms.send(
            new VerifyCommand({
              KeyId: key.KeyId,
              Message: changed,
              Signature: raw.Signature,
              SigningAlgorithm: SigningAlgorithm as never,
            }),
          ),
        ),
        { name: 'KMSInvalidSignatureException' },
        `${name}: a changed message does not verify`,
      );
      t.notOk(opensslVerifies(publicKey, raw.Signature!, changed, { hash, pss }), `${name}: nor for OpenSSL`);
    }
  });

  t.test('Ed25519 signs the message; HMAC keys make and check MACs', async (t) => {
    const ed = (await kms.send(new CreateKeyCommand({ KeySpec: 'ECC_NIST_EDWARDS25519', KeyUsage: 'SIGN_VERIFY' })))
      .KeyMetadata!;
    const message = Buffer.from('hello');
    const signed = await kms.send(
      new SignCommand({ KeyId: ed.KeyId, Message: message, SigningAlgorithm: 'ED25519_SHA_512' }),
    );
    const publicKey = await kms.send(new GetPublicKeyCommand({ KeyId: ed.KeyId }));
    t.equal(publicKey.KeySpec, 'ECC_NIST_EDWARDS25519');
    t.ok(
      opensslVerifies(publicKey.PublicKey!, signed.Signature!, message, {}),
      'OpenSSL verifies the Ed25519 signature',
    );
    t.match(
      await failure(
        kms.send(
          new SignCommand({
            KeyId: ed.KeyId,
            Message: message,
            MessageType: 'DIGEST',
            SigningAlgorithm: 'ED25519_SHA_512',
          }),
        ),
      ),
      { name: 'ValidationException' },
    );
    const hmac = (await kms.send(new CreateKeyCommand({ KeySpec: 'HMAC_256', KeyUsage: 'GENERATE_VERIFY_MAC' })))
      .KeyMetadata!;
    const mac = await kms.send(
      new GenerateMacCommand({ KeyId: hmac.KeyId, Message: message, MacAlgorithm: 'HMAC_SHA_256' }),
    );
    t.equal(mac.Mac!.length, 32);
    t.match(
      await kms.send(
        new VerifyMacCommand({ KeyId: hmac.KeyId, Message: message, Mac: mac.Mac, MacAlgorithm: 'HMAC_SHA_256' }),
      ),
      {
        MacValid: true,
      },
    );
    t.match(
      await failure(
        kms.send(
          new VerifyMacCommand({
            KeyId: hmac.KeyId,
            Message: Buffer.from('other'),
            Mac: mac.Mac,
            MacAlgorithm: 'HMAC_SHA_256',
          }),
        ),
      ),
      { name: 'KMSInvalidMacException' },
    );
    t.match(await failure(kms.send(new EncryptCommand({ KeyId: hmac.KeyId, Plaintext: message }))), {
      name: 'InvalidKeyUsageException',
    });
  });
});
