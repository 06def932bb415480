import { createHash } from 'node:crypto';
import {
  CreateKeyCommand,
  DecryptCommand,
  GenerateDataKeyCommand,
  GetPublicKeyCommand,
  VerifyCommand,
} from '@aws-sdk/client-kms';
import t from 'tap';
import { awsCli, blob, boto3Client, bytesOf } from '../helpers/aws-clients.ts';
import { accessKeyFor, kmsClient, opensslVerifies } from '../helpers/aws-kms.ts';
import { startTestService } from '../helpers/service.ts';

/**
 * What one AWS client makes through the door, the others use: a data key from the JS SDK opens through
 * the AWS CLI, boto3 and REST; a ciphertext from boto3 through the CLI and the SDK; RSA and ECDSA
 * signatures from the CLI (over the message and over its digest) verify through boto3, the SDK and
 * OpenSSL. Each client signs its requests its own way, under its own access key, in its own region.
 */

t.setTimeout(600_000);

t.test('ciphertexts and signatures cross between the SDK, the AWS CLI, boto3 and REST', async (t) => {
  const svc = await startTestService();
  t.teardown(() => svc.stop());
  const door = `${svc.url}/aws/kms`;
  const sdk = kmsClient(svc, await accessKeyFor(svc, 'alice'), 'eu-central-1');
  const aws = await awsCli(t, door, await accessKeyFor(svc, 'alice'), 'us-east-2');
  if (!aws) return;
  const boto3 = await boto3Client(t, door, await accessKeyFor(svc, 'alice'), 'sa-east-1');
  if (!boto3) return;
  const rest = svc.client('alice');
  const aes = (await sdk.send(new CreateKeyCommand({ Description: 'shared' }))).KeyMetadata!;

  t.test('a data key from the JS SDK decrypts through the CLI, boto3 and REST', async (t) => {
    const context = { bucket: 'invoices', object: '2026/11.pdf' };
    const made = await sdk.send(
      new GenerateDataKeyCommand({ KeyId: aes.KeyId, KeySpec: 'AES_256', EncryptionContext: context }),
    );
    const dataKey = Buffer.from(made.Plaintext!);
    const blobBytes = Buffer.from(made.CiphertextBlob!);
    const viaCli = await aws.ok(
      'decrypt',
      '--ciphertext-blob',
      aws.fileb(blobBytes),
      '--encryption-context',
      'bucket=invoices,object=2026/11.pdf',
    );
    t.same(Buffer.from(viaCli.Plaintext, 'base64'), dataKey, 'the CLI (no --key-id)');
    t.equal(viaCli.KeyId, `arn:aws:kms:us-east-2:000000000000:key/${aes.KeyId}`, "in the CLI's region");
    const viaBoto3 = await boto3.ok('decrypt', { CiphertextBlob: blob(blobBytes), EncryptionContext: context });
    t.same(bytesOf(viaBoto3.Plaintext), dataKey, 'boto3 (no KeyId)');
    const viaRest = await rest.post(`/v1/keys/${aes.KeyId}/decrypt`, {
      ciphertextBase64: blobBytes.toString('base64'),
      context,
    });
    t.equal(viaRest.status, 200);
    t.same(
      Buffer.from(viaRest.body.plaintextBase64, 'base64'),
      dataKey,
      'REST, the CiphertextBlob as ciphertextBase64',
    );
  });

  t.test('a ciphertext from boto3 decrypts through the CLI and the JS SDK', async (t) => {
    const plaintext = Buffer.from('made by boto3 \u00e9\u00e8');
    const sealed = await boto3.ok('encrypt', {
      KeyId: aes.Arn,
      Plaintext: blob(plaintext),
      EncryptionContext: { from: 'boto3' },
    });
    const ciphertext = bytesOf(sealed.CiphertextBlob);
    const viaCli = await aws.ok(
      'decrypt',
      '--ciphertext-blob',
      aws.fileb(ciphertext),
      '--encryption-context',
      'from=boto3',
    );
    t.same(Buffer.from(viaCli.Plaintext, 'base64'), plaintext, 'the CLI');
    const viaSdk = await sdk.send(
      new DecryptCommand({ CiphertextBlob: ciphertext, EncryptionContext: { from: 'boto3' } }),
    );
    t.same(Buffer.from(viaSdk.Plaintext!), plaintext, 'the JS SDK');
    t.equal(viaSdk.KeyId, aes.Arn);
  });

  t.test(
    'RSA and ECDSA signatures from the CLI, RAW and DIGEST, verify through boto3, the SDK and OpenSSL',
    async (t) => {
      const message = Buffer.from('a release manifest signed with the AWS CLI');
      const cases = [
        ['RSA_2048', 'RSASSA_PSS_SHA_512', 'sha512', true],
        ['RSA_2048', 'RSASSA_PKCS1_V1_5_SHA_256', 'sha256', false],
        ['ECC_NIST_P384', 'ECDSA_SHA_384', 'sha384', false],
        ['ECC_NIST_P256', 'ECDSA_SHA_256', 'sha256', false],
      ] as const;
      const keys = new Map<string, string>();
      for (const [spec, algorithm, hash, pss] of cases) {
        if (!keys.has(spec))
          keys.set(
            spec,
            (await aws.ok('create-key', '--key-spec', spec, '--key-usage', 'SIGN_VERIFY')).KeyMetadata.KeyId as string,
          );
        const keyId = keys.get(spec)!;
        const digest = createHash(hash).update(message).digest();
        const signatures = {
          RAW: Buffer.from(
            (
              await aws.ok(
                'sign',
                '--key-id',
                keyId,
                '--message',
                aws.fileb(message),
                '--message-type',
                'RAW',
                '--signing-algorithm',
                algorithm,
              )
            ).Signature,
            'base64',
          ),
          DIGEST: Buffer.from(
            (
              await aws.ok(
                'sign',
                '--key-id',
                keyId,
                '--message',
                aws.fileb(digest),
                '--message-type',
                'DIGEST',
                '--signing-algorithm',
                algorithm,
              )
            ).Signature,
            'base64',
          ),
        };
        const publicKey = (await sdk.send(new GetPublicKeyCommand({ KeyId: keyId }))).PublicKey!;
        for (const [made, signature] of Object.entries(signatures)) {
          const name = `${spec} ${algorithm} ${made} (CLI)`;
          t.ok(opensslVerifies(publicKey, signature, message, { hash, pss }), `${name}: OpenSSL, over the message`);
          t.ok(
            opensslVerifies(publicKey, signature, digest, { hash, pss, digest: true }),
            `${name}: OpenSSL, over the digest`,
          );
          const bySdk = await sdk.send(
            new VerifyCommand({ KeyId: keyId, Message: message, Signature: signature, SigningAlgorithm: algorithm }),
          );
          t.equal(bySdk.SignatureValid, true, `${name}: the JS SDK, RAW`);
          const bySdkDigest = await sdk.send(
            new VerifyCommand({
              KeyId: keyId,
              Message: digest,
              MessageType: 'DIGEST',
              Signature: signature,
              SigningAlgorithm: algorithm,
            }),
          );
          t.equal(bySdkDigest.SignatureValid, true, `${name}: the JS SDK, DIGEST`);
          const [byBoto3, byBoto3Digest, wrong] = await boto3.run([
            {
              op: 'verify',
              args: { KeyId: keyId, Message: blob(message), Signature: blob(signature), SigningAlgorithm: algorithm },
            },
            {
              op: 'verify',
              args: {
                KeyId: keyId,
                Message: blob(digest),
                MessageType: 'DIGEST',
                Signature: blob(signature),
                SigningAlgorithm: algorithm,
              },
            },
            {
              op: 'verify',
              args: {
                KeyId: keyId,
                Message: blob(Buffer.from('a different manifest')),
                Signature: blob(signature),
                SigningAlgorithm: algorithm,
              },
            },
          ]);
          t.match(byBoto3, { ok: { SignatureValid: true } }, `${name}: boto3, RAW`);
          t.match(byBoto3Digest, { ok: { SignatureValid: true } }, `${name}: boto3, DIGEST`);
          t.match(wrong, { error: { exception: 'KMSInvalidSignatureException' } }, `${name}: not over another message`);
        }
      }
    },
  );
});
