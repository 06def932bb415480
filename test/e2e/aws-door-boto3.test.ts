import { createHash } from 'node:crypto';
import t from 'tap';
import { blob, type Boto3Result, boto3Client, bytesOf, ref } from '../helpers/aws-clients.ts';
import { accessKeyFor, opensslVerifies } from '../helpers/aws-kms.ts';
import { startTestService } from '../helpers/service.ts';

/**
 * boto3's kms client (Debian's python3-boto3, test/fixtures/aws-boto3-client.py) against the AWS door
 * by endpoint_url: keys, encryption with contexts, data keys, re-encryption, random bytes, signatures
 * over messages and digests (checked by OpenSSL too), MACs, aliases, key states, tags and rotation,
 * and refusals raised as boto3's modelled exceptions (client.exceptions.NotFoundException...).
 */

t.setTimeout(600_000);

const REGION = 'ap-southeast-2';
const ACCOUNT = '000000000000';
const arnOf = (id: string) => `arn:aws:kms:${REGION}:${ACCOUNT}:key/${id}`;

const ok = (result: Boto3Result | undefined): any => {
  if (!result || !('ok' in result)) throw new Error(`expected an answer, got ${JSON.stringify(result)}`);
  return result.ok;
};
/** A refusal as boto3 raised it: the exception class (ClientError subclass) and the code botocore read. */
const refused = (result: Boto3Result | undefined) => {
  if (!result || !('error' in result)) throw new Error(`expected a refusal, got ${JSON.stringify(result)}`);
  return result.error;
};

t.test('boto3 against the AWS door', async (t) => {
  const svc = await startTestService();
  t.teardown(() => svc.stop());
  const door = `${svc.url}/aws/kms`;
  const key = await accessKeyFor(svc, 'bob');
  const boto3 = await boto3Client(t, door, key, REGION);
  if (!boto3) return;
  t.comment(boto3.version);
  const rest = svc.client('bob');

  const [aesMade, otherMade, rsaMade, ecMade, hmacMade] = await boto3.run([
    { op: 'create_key', args: { Description: 'boto3 ledger', Tags: [{ TagKey: 'team', TagValue: 'ledger' }] } },
    { op: 'create_key' },
    { op: 'create_key', args: { KeySpec: 'RSA_2048', KeyUsage: 'SIGN_VERIFY' } },
    { op: 'create_key', args: { KeySpec: 'ECC_NIST_P256', KeyUsage: 'SIGN_VERIFY' } },
    { op: 'create_key', args: { KeySpec: 'HMAC_256', KeyUsage: 'GENERATE_VERIFY_MAC' } },
  ]);
  const aes = ok(aesMade).KeyMetadata;
  const other = ok(otherMade).KeyMetadata;
  const rsa = ok(rsaMade).KeyMetadata;
  const ec = ok(ecMade).KeyMetadata;
  const hmac = ok(hmacMade).KeyMetadata;

  t.test('create_key, describe_key, list_keys with Limit and Marker', async (t) => {
    t.match(aes, {
      AWSAccountId: ACCOUNT,
      KeyId: /^[0-9a-f-]{36}$/,
      Arn: arnOf(aes.KeyId),
      Enabled: true,
      Description: 'boto3 ledger',
      KeyUsage: 'ENCRYPT_DECRYPT',
      KeyState: 'Enabled',
      KeySpec: 'SYMMETRIC_DEFAULT',
      EncryptionAlgorithms: ['SYMMETRIC_DEFAULT'],
    });
    // boto3 parsed CreationDate into a datetime: the door sent a timestamp, not text.
    t.match(aes.CreationDate, { $date: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\+00:00$/ });
    t.match(rsa, { KeySpec: 'RSA_2048', KeyUsage: 'SIGN_VERIFY' });
    t.match(ec, { KeySpec: 'ECC_NIST_P256', SigningAlgorithms: ['ECDSA_SHA_256'] });
    t.match(hmac, { KeySpec: 'HMAC_256', KeyUsage: 'GENERATE_VERIFY_MAC', MacAlgorithms: ['HMAC_SHA_256'] });
    const [byArn, first, second] = await boto3.run([
      { op: 'describe_key', args: { KeyId: aes.Arn } },
      { op: 'list_keys', args: { Limit: 2 } },
      { op: 'list_keys', args: { Limit: 1000, Marker: ref(1, 'NextMarker') } },
    ]);
    t.match(ok(byArn).KeyMetadata, { KeyId: aes.KeyId, Description: 'boto3 ledger' });
    t.equal(ok(first).Keys.length, 2);
    t.equal(ok(first).Truncated, true);
    t.equal(ok(second).Truncated, false);
    const ids = [...ok(first).Keys, ...ok(second).Keys].map((k: { KeyId: string }) => k.KeyId);
    for (const k of [aes, other, rsa, ec, hmac]) t.ok(ids.includes(k.KeyId), `${k.KeySpec} listed`);
    t.equal(new Set(ids).size, ids.length, 'no key on both pages');
  });

  t.test('encrypt and decrypt with a context; decrypt needs no KeyId; refusals as exceptions', async (t) => {
    const plaintext = Buffer.from([0, 1, 2, 250, 255, 10]);
    const context = { tenant: 'b', purpose: 'boto3' };
    const results = await boto3.run([
      { op: 'encrypt', args: { KeyId: aes.KeyId, Plaintext: blob(plaintext), EncryptionContext: context } },
      { op: 'decrypt', args: { CiphertextBlob: ref(0, 'CiphertextBlob'), EncryptionContext: context } },
      { op: 'decrypt', args: { CiphertextBlob: ref(0, 'CiphertextBlob'), EncryptionContext: { tenant: 'c' } } },
      {
        op: 'decrypt',
        args: { CiphertextBlob: ref(0, 'CiphertextBlob'), EncryptionContext: context, KeyId: other.KeyId },
      },
      { op: 'encrypt', args: { KeyId: rsa.KeyId, Plaintext: blob(plaintext) } },
      {
        op: 'encrypt',
        args: { KeyId: aes.KeyId, Plaintext: blob(plaintext), EncryptionAlgorithm: 'RSAES_OAEP_SHA_1' },
      },
    ]);
    t.match(ok(results[0]), { KeyId: aes.Arn, EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' });
    t.same(bytesOf(ok(results[1]).Plaintext), plaintext);
    t.match(ok(results[1]), { KeyId: aes.Arn, EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' });
    t.match(refused(results[2]), {
      exception: 'InvalidCiphertextException',
      code: 'InvalidCiphertextException',
      status: 400,
    });
    t.match(refused(results[3]), { exception: 'IncorrectKeyException', status: 400 });
    t.match(
      refused(results[4]),
      { exception: 'InvalidKeyUsageException', status: 400 },
      'a signing key does not encrypt',
    );
    t.match(refused(results[5]), { exception: 'InvalidKeyUsageException' }, 'RSAES_OAEP_SHA_1 with a symmetric key');
    const tampered = bytesOf(ok(results[0]).CiphertextBlob);
    tampered[10]! ^= 1;
    const [opened] = await boto3.run([
      { op: 'decrypt', args: { CiphertextBlob: blob(tampered), EncryptionContext: context } },
    ]);
    t.match(refused(opened), { exception: 'InvalidCiphertextException' }, 'a changed byte');
  });

  t.test('generate_data_key and generate_data_key_without_plaintext', async (t) => {
    const results = await boto3.run([
      { op: 'generate_data_key', args: { KeyId: 'alias/missing', KeySpec: 'AES_256' } },
      { op: 'generate_data_key', args: { KeyId: aes.Arn, KeySpec: 'AES_128', EncryptionContext: { f: '1' } } },
      { op: 'decrypt', args: { CiphertextBlob: ref(1, 'CiphertextBlob'), EncryptionContext: { f: '1' } } },
      { op: 'generate_data_key_without_plaintext', args: { KeyId: aes.KeyId, NumberOfBytes: 32 } },
      { op: 'decrypt', args: { CiphertextBlob: ref(3, 'CiphertextBlob') } },
      { op: 'generate_data_key', args: { KeyId: hmac.KeyId, KeySpec: 'AES_256' } },
    ]);
    t.match(refused(results[0]), { exception: 'NotFoundException' });
    const made = ok(results[1]);
    t.equal(bytesOf(made.Plaintext).length, 16);
    t.equal(made.KeyId, aes.Arn);
    t.same(bytesOf(ok(results[2]).Plaintext), bytesOf(made.Plaintext), 'decrypt answers the data key');
    const viaRest = await rest.post(`/v1/keys/${aes.KeyId}/decrypt`, {
      ciphertextBase64: made.CiphertextBlob.$b64,
      context: { f: '1' },
    });
    t.equal(viaRest.body.plaintextBase64, made.Plaintext.$b64, 'REST opens it too');
    t.notOk('Plaintext' in ok(results[3]));
    t.equal(bytesOf(ok(results[4]).Plaintext).length, 32);
    t.match(refused(results[5]), { exception: 'InvalidKeyUsageException' }, 'an HMAC key makes no data keys');
  });

  t.test('re_encrypt and generate_random', async (t) => {
    const results = await boto3.run([
      { op: 'encrypt', args: { KeyId: other.Arn, Plaintext: blob(Buffer.from('hop')), EncryptionContext: { a: 'b' } } },
      {
        op: 're_encrypt',
        args: {
          CiphertextBlob: ref(0, 'CiphertextBlob'),
          SourceEncryptionContext: { a: 'b' },
          DestinationKeyId: aes.KeyId,
          DestinationEncryptionContext: { c: 'd' },
        },
      },
      { op: 'decrypt', args: { CiphertextBlob: ref(1, 'CiphertextBlob'), EncryptionContext: { c: 'd' } } },
      { op: 'generate_random', args: { NumberOfBytes: 48 } },
      { op: 'generate_random', args: { NumberOfBytes: 1025 } },
    ]);
    t.match(ok(results[1]), {
      SourceKeyId: other.Arn,
      KeyId: aes.Arn,
      SourceEncryptionAlgorithm: 'SYMMETRIC_DEFAULT',
      DestinationEncryptionAlgorithm: 'SYMMETRIC_DEFAULT',
    });
    t.equal(bytesOf(ok(results[2]).Plaintext).toString(), 'hop');
    t.equal(ok(results[2]).KeyId, aes.Arn);
    t.equal(bytesOf(ok(results[3]).Plaintext).length, 48);
    // botocore checks only the least value itself: 1025 reaches the door.
    t.match(refused(results[4]), { exception: 'ClientError', code: 'ValidationException', status: 400 });
  });

  t.test('sign and verify RAW and DIGEST; get_public_key; OpenSSL agrees', async (t) => {
    const message = Buffer.from('boto3 signs this');
    for (const [k, algorithm, hash, pss] of [
      [rsa, 'RSASSA_PSS_SHA_384', 'sha384', true],
      [rsa, 'RSASSA_PKCS1_V1_5_SHA_256', 'sha256', false],
      [ec, 'ECDSA_SHA_256', 'sha256', false],
    ] as const) {
      const name = `${k.KeySpec} ${algorithm}`;
      const digest = createHash(hash).update(message).digest();
      const results = await boto3.run([
        { op: 'get_public_key', args: { KeyId: k.KeyId } },
        { op: 'sign', args: { KeyId: k.KeyId, Message: blob(message), SigningAlgorithm: algorithm } },
        {
          op: 'sign',
          args: { KeyId: k.Arn, Message: blob(digest), MessageType: 'DIGEST', SigningAlgorithm: algorithm },
        },
        {
          op: 'verify',
          args: { KeyId: k.KeyId, Message: blob(message), Signature: ref(2, 'Signature'), SigningAlgorithm: algorithm },
        },
        {
          op: 'verify',
          args: {
            KeyId: k.KeyId,
            Message: blob(digest),
            MessageType: 'DIGEST',
            Signature: ref(1, 'Signature'),
            SigningAlgorithm: algorithm,
          },
        },
        {
          op: 'verify',
          args: {
            KeyId: k.KeyId,
            Message: blob(Buffer.from('not this')),
            Signature: ref(1, 'Signature'),
            SigningAlgorithm: algorithm,
          },
        },
      ]);
      const publicKey = ok(results[0]);
      t.match(publicKey, { KeyId: k.Arn, KeySpec: k.KeySpec, KeyUsage: 'SIGN_VERIFY' }, `${name}: get_public_key`);
      const der = bytesOf(publicKey.PublicKey);
      t.match(ok(results[1]), { KeyId: k.Arn, SigningAlgorithm: algorithm });
      t.ok(opensslVerifies(der, bytesOf(ok(results[1]).Signature), message, { hash, pss }), `${name}: OpenSSL, RAW`);
      t.ok(
        opensslVerifies(der, bytesOf(ok(results[2]).Signature), digest, { hash, pss, digest: true }),
        `${name}: OpenSSL, DIGEST`,
      );
      t.match(
        ok(results[3]),
        { SignatureValid: true, SigningAlgorithm: algorithm },
        `${name}: DIGEST signature, RAW verify`,
      );
      t.match(ok(results[4]), { SignatureValid: true }, `${name}: RAW signature, DIGEST verify`);
      t.match(
        refused(results[5]),
        { exception: 'KMSInvalidSignatureException', status: 400 },
        `${name}: wrong message`,
      );
    }
  });

  t.test('generate_mac and verify_mac', async (t) => {
    const results = await boto3.run([
      {
        op: 'generate_mac',
        args: { KeyId: hmac.KeyId, Message: blob(Buffer.from('m')), MacAlgorithm: 'HMAC_SHA_256' },
      },
      {
        op: 'verify_mac',
        args: { KeyId: hmac.Arn, Message: blob(Buffer.from('m')), Mac: ref(0, 'Mac'), MacAlgorithm: 'HMAC_SHA_256' },
      },
      {
        op: 'verify_mac',
        args: { KeyId: hmac.KeyId, Message: blob(Buffer.from('n')), Mac: ref(0, 'Mac'), MacAlgorithm: 'HMAC_SHA_256' },
      },
      { op: 'generate_mac', args: { KeyId: aes.KeyId, Message: blob(Buffer.from('m')), MacAlgorithm: 'HMAC_SHA_256' } },
    ]);
    t.match(ok(results[0]), { KeyId: hmac.Arn, MacAlgorithm: 'HMAC_SHA_256' });
    t.equal(bytesOf(ok(results[0]).Mac).length, 32);
    t.match(ok(results[1]), { KeyId: hmac.Arn, MacValid: true });
    t.match(refused(results[2]), { exception: 'KMSInvalidMacException' });
    t.match(refused(results[3]), { exception: 'InvalidKeyUsageException' }, 'an AES key makes no MAC');
  });

  t.test('aliases: create, list, use by name and ARN, update, delete', async (t) => {
    const alias = 'alias/boto3-ledger';
    const aliasArn = `arn:aws:kms:${REGION}:${ACCOUNT}:${alias}`;
    const results = await boto3.run([
      { op: 'create_alias', args: { AliasName: alias, TargetKeyId: aes.KeyId } },
      { op: 'create_alias', args: { AliasName: alias, TargetKeyId: other.KeyId } },
      { op: 'list_aliases', args: { KeyId: aes.KeyId } },
      { op: 'describe_key', args: { KeyId: aliasArn } },
      { op: 'encrypt', args: { KeyId: alias, Plaintext: blob(Buffer.from('a')) } },
      { op: 'update_alias', args: { AliasName: alias, TargetKeyId: other.Arn } },
      { op: 'encrypt', args: { KeyId: aliasArn, Plaintext: blob(Buffer.from('a')) } },
      { op: 'delete_alias', args: { AliasName: alias } },
      { op: 'describe_key', args: { KeyId: alias } },
    ]);
    t.same(ok(results[0]), {}, 'create_alias answers nothing');
    t.match(refused(results[1]), { exception: 'AlreadyExistsException' });
    t.match(ok(results[2]).Aliases, [{ AliasName: alias, AliasArn: aliasArn, TargetKeyId: aes.KeyId }]);
    t.match(ok(results[2]).Aliases[0].CreationDate, { $date: /^\d{4}-/ }, 'CreationDate is a timestamp');
    t.equal(ok(results[3]).KeyMetadata.KeyId, aes.KeyId);
    t.equal(ok(results[4]).KeyId, aes.Arn);
    t.equal(ok(results[6]).KeyId, other.Arn, 'after update_alias');
    t.same(ok(results[7]), {});
    t.match(refused(results[8]), { exception: 'NotFoundException' });
  });

  t.test('disable_key, enable_key, schedule_key_deletion, cancel_key_deletion', async (t) => {
    const [made] = await boto3.run([{ op: 'create_key' }]);
    const k = ok(made).KeyMetadata;
    const results = await boto3.run([
      { op: 'disable_key', args: { KeyId: k.KeyId } },
      { op: 'describe_key', args: { KeyId: k.KeyId } },
      { op: 'encrypt', args: { KeyId: k.KeyId, Plaintext: blob(Buffer.from('x')) } },
      { op: 'enable_key', args: { KeyId: k.KeyId } },
      { op: 'encrypt', args: { KeyId: k.KeyId, Plaintext: blob(Buffer.from('x')) } },
      { op: 'schedule_key_deletion', args: { KeyId: k.Arn, PendingWindowInDays: 7 } },
      { op: 'describe_key', args: { KeyId: k.KeyId } },
      { op: 'encrypt', args: { KeyId: k.KeyId, Plaintext: blob(Buffer.from('x')) } },
      { op: 'cancel_key_deletion', args: { KeyId: k.KeyId } },
      { op: 'describe_key', args: { KeyId: k.KeyId } },
    ]);
    t.match(ok(results[1]).KeyMetadata, { KeyState: 'Disabled', Enabled: false });
    t.match(refused(results[2]), { exception: 'DisabledException' });
    t.ok(ok(results[4]).CiphertextBlob, 'enabled again, it encrypts');
    const scheduled = ok(results[5]);
    t.match(scheduled, { KeyId: k.Arn, KeyState: 'PendingDeletion', PendingWindowInDays: 7 });
    const days = (Date.parse(scheduled.DeletionDate.$date) - Date.now()) / 86_400_000;
    t.ok(days > 6.9 && days <= 7.01, `DeletionDate in 7 days (${days})`);
    t.match(ok(results[6]).KeyMetadata, { KeyState: 'PendingDeletion', DeletionDate: scheduled.DeletionDate });
    t.match(refused(results[7]), { exception: 'KMSInvalidStateException' });
    t.same(ok(results[8]), { KeyId: k.Arn });
    t.match(ok(results[9]).KeyMetadata, { KeyState: 'Disabled' });
  });

  t.test('tag_resource, list_resource_tags, untag_resource; rotate_key_on_demand', async (t) => {
    const results = await boto3.run([
      { op: 'tag_resource', args: { KeyId: other.KeyId, Tags: [{ TagKey: 'cost-centre', TagValue: '42' }] } },
      { op: 'list_resource_tags', args: { KeyId: other.Arn } },
      { op: 'untag_resource', args: { KeyId: other.KeyId, TagKeys: ['cost-centre'] } },
      { op: 'list_resource_tags', args: { KeyId: other.KeyId } },
      { op: 'encrypt', args: { KeyId: other.KeyId, Plaintext: blob(Buffer.from('before')) } },
      { op: 'rotate_key_on_demand', args: { KeyId: other.KeyId } },
      { op: 'decrypt', args: { CiphertextBlob: ref(4, 'CiphertextBlob') } },
    ]);
    t.same(ok(results[1]), { Tags: [{ TagKey: 'cost-centre', TagValue: '42' }], Truncated: false });
    t.same(ok(results[3]).Tags, []);
    t.same(ok(results[5]), { KeyId: other.KeyId });
    t.equal((await rest.get(`/v1/keys/${other.KeyId}`)).body.currentVersion, 2, 'REST reads version 2');
    t.equal(bytesOf(ok(results[6]).Plaintext).toString(), 'before', 'the old version still decrypts');
  });

  t.test('refusals: an unknown key, a wrong secret', async (t) => {
    const [unknown, badId] = await boto3.run([
      { op: 'describe_key', args: { KeyId: '00000000-0000-4000-8000-000000000000' } },
      { op: 'describe_key', args: { KeyId: 'not-a-key' } },
    ]);
    t.match(refused(unknown), { exception: 'NotFoundException', code: 'NotFoundException', status: 400 });
    t.match(refused(badId), { exception: 'NotFoundException' });
    const wrong = await boto3Client(t, door, { ...key, secretAccessKey: `${key.secretAccessKey}x` }, REGION);
    const [listed] = await wrong!.run([{ op: 'list_keys' }]);
    t.match(refused(listed), { code: 'InvalidSignatureException', status: 400 });
  });
});
