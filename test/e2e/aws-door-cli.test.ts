import { createHash, randomBytes } from 'node:crypto';
import t from 'tap';
import { type AwsCli, awsCli } from '../helpers/aws-clients.ts';
import { accessKeyFor, opensslVerifies } from '../helpers/aws-kms.ts';
import { startTestService } from '../helpers/service.ts';

/**
 * Debian's AWS CLI (`aws kms ... --endpoint-url`) against the AWS door: the CLI signs fewer headers
 * than the SDKs, so every call here is a test of the door's Signature Version 4 as well. Keys of each
 * kind, files encrypted and decrypted (fileb://), data keys, re-encryption, random bytes, signatures
 * that OpenSSL checks, MACs, aliases by name and ARN, key states, tags and rotation; refusals read as
 * the CLI prints them: "An error occurred (EXCEPTION) when calling the OPERATION operation".
 */

t.setTimeout(600_000);

const REGION = 'eu-west-1';
const ACCOUNT = '000000000000';
const arnOf = (id: string) => `arn:aws:kms:${REGION}:${ACCOUNT}:key/${id}`;
const b64 = (text: string) => Buffer.from(text, 'base64');

/** What the CLI printed for a call that must fail: its exit code and the exception its stderr names. */
async function refusal(aws: AwsCli, ...args: string[]) {
  const ran = await aws.kms(...args);
  const named = /An error occurred \(([A-Za-z]+)\) when calling the ([A-Za-z]+) operation/.exec(ran.stderr);
  return { code: ran.code, exception: named?.[1], operation: named?.[2], stderr: ran.stderr };
}

t.test('the AWS CLI against the AWS door', async (t) => {
  const svc = await startTestService();
  t.teardown(() => svc.stop());
  const door = `${svc.url}/aws/kms`;
  const key = await accessKeyFor(svc, 'alice');
  const aws = await awsCli(t, door, key, REGION);
  if (!aws) return;
  t.comment(aws.version);
  const rest = svc.client('alice');

  const created = {
    aes: (await aws.ok('create-key', '--description', 'cli payments', '--tags', 'TagKey=team,TagValue=payments'))
      .KeyMetadata,
    other: (await aws.ok('create-key')).KeyMetadata,
    rsa: (await aws.ok('create-key', '--key-spec', 'RSA_2048', '--key-usage', 'SIGN_VERIFY')).KeyMetadata,
    ec: (await aws.ok('create-key', '--key-spec', 'ECC_NIST_P256', '--key-usage', 'SIGN_VERIFY')).KeyMetadata,
    hmac: (await aws.ok('create-key', '--key-spec', 'HMAC_256', '--key-usage', 'GENERATE_VERIFY_MAC')).KeyMetadata,
  };
  const { aes, other, rsa, ec, hmac } = created;

  t.test('create-key for each kind answers KeyMetadata; describe-key and list-keys read the keys back', async (t) => {
    t.match(aes, {
      AWSAccountId: ACCOUNT,
      KeyId: /^[0-9a-f-]{36}$/,
      Arn: arnOf(aes.KeyId),
      Enabled: true,
      Description: 'cli payments',
      KeyUsage: 'ENCRYPT_DECRYPT',
      KeyState: 'Enabled',
      Origin: 'AWS_KMS',
      KeyManager: 'CUSTOMER',
      KeySpec: 'SYMMETRIC_DEFAULT',
      EncryptionAlgorithms: ['SYMMETRIC_DEFAULT'],
      MultiRegion: false,
    });
    // The CLI prints timestamps (epoch seconds on the wire) as ISO 8601: a number it could not parse would show as is.
    const age = Date.now() - Date.parse(aes.CreationDate);
    t.ok(age >= 0 && age < 600_000, `CreationDate ${aes.CreationDate} is the time of the call`);
    t.match(rsa, { KeySpec: 'RSA_2048', KeyUsage: 'SIGN_VERIFY' });
    t.same(rsa.SigningAlgorithms, [
      'RSASSA_PSS_SHA_256',
      'RSASSA_PSS_SHA_384',
      'RSASSA_PSS_SHA_512',
      'RSASSA_PKCS1_V1_5_SHA_256',
      'RSASSA_PKCS1_V1_5_SHA_384',
      'RSASSA_PKCS1_V1_5_SHA_512',
    ]);
    t.notOk('EncryptionAlgorithms' in rsa, 'a signing key has no EncryptionAlgorithms');
    t.match(ec, { KeySpec: 'ECC_NIST_P256', KeyUsage: 'SIGN_VERIFY', SigningAlgorithms: ['ECDSA_SHA_256'] });
    t.match(hmac, { KeySpec: 'HMAC_256', KeyUsage: 'GENERATE_VERIFY_MAC', MacAlgorithms: ['HMAC_SHA_256'] });
    t.match((await rest.get(`/v1/keys/${aes.KeyId}`)).body, {
      state: 'Active',
      spec: { algorithm: 'AES', sizeBits: 256 },
      tags: { team: 'payments' },
    });
    for (const reference of [aes.KeyId, aes.Arn]) {
      const described = await aws.ok('describe-key', '--key-id', reference);
      t.match(described.KeyMetadata, { KeyId: aes.KeyId, Arn: aes.Arn, Description: 'cli payments' }, reference);
    }
    // --page-size 1: the CLI's own paginator follows NextMarker page by page until Truncated is false.
    const listed = await aws.ok('list-keys', '--page-size', '1');
    const ids = listed.Keys.map((k: { KeyId: string }) => k.KeyId);
    for (const k of Object.values(created)) t.ok(ids.includes(k.KeyId), `list-keys lists ${k.KeySpec} ${k.KeyId}`);
    t.equal(new Set(ids).size, ids.length, 'no key twice across the pages');
    for (const k of listed.Keys) t.equal(k.KeyArn, arnOf(k.KeyId));
  });

  t.test('encrypt and decrypt a binary file; decrypt needs no --key-id; the context binds', async (t) => {
    const plaintext = Buffer.concat([Buffer.from([0, 255, 10, 13]), randomBytes(200)]);
    const sealed = await aws.ok(
      'encrypt',
      '--key-id',
      aes.KeyId,
      '--plaintext',
      aws.fileb(plaintext),
      '--encryption-context',
      'tenant=a,purpose=cli',
    );
    t.match(sealed, { KeyId: aes.Arn, EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' });
    const ciphertext = aws.fileb(b64(sealed.CiphertextBlob));
    const opened = await aws.ok(
      'decrypt',
      '--ciphertext-blob',
      ciphertext,
      '--encryption-context',
      'tenant=a,purpose=cli',
    );
    t.same(b64(opened.Plaintext), plaintext, 'the same bytes come back');
    t.match(opened, { KeyId: aes.Arn, EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' });
    t.match(
      await refusal(aws, 'decrypt', '--ciphertext-blob', ciphertext, '--encryption-context', 'tenant=b'),
      { code: 254, exception: 'InvalidCiphertextException', operation: 'Decrypt' },
      'another context: InvalidCiphertextException',
    );
    t.match(
      await refusal(aws, 'decrypt', '--ciphertext-blob', ciphertext, '--key-id', other.KeyId),
      { code: 254, exception: 'IncorrectKeyException' },
      'a --key-id of another key: IncorrectKeyException',
    );
    const tampered = b64(sealed.CiphertextBlob);
    tampered[tampered.length - 1]! ^= 1;
    t.match(
      await refusal(
        aws,
        'decrypt',
        '--ciphertext-blob',
        aws.fileb(tampered),
        '--encryption-context',
        'tenant=a,purpose=cli',
      ),
      { code: 254, exception: 'InvalidCiphertextException' },
      'a changed byte: InvalidCiphertextException',
    );
    t.match(
      await refusal(aws, 'encrypt', '--key-id', rsa.KeyId, '--plaintext', aws.fileb(plaintext)),
      { exception: 'InvalidKeyUsageException', operation: 'Encrypt' },
      'a signing key does not encrypt: InvalidKeyUsageException',
    );
  });

  t.test('generate-data-key: the plaintext key is what its CiphertextBlob decrypts to', async (t) => {
    const made = await aws.ok(
      'generate-data-key',
      '--key-id',
      aes.Arn,
      '--key-spec',
      'AES_256',
      '--encryption-context',
      'file=report.pdf',
    );
    t.equal(b64(made.Plaintext).length, 32);
    t.equal(made.KeyId, aes.Arn);
    const opened = await aws.ok(
      'decrypt',
      '--ciphertext-blob',
      aws.fileb(b64(made.CiphertextBlob)),
      '--encryption-context',
      'file=report.pdf',
    );
    t.equal(opened.Plaintext, made.Plaintext, 'the CLI opens it');
    const viaRest = await rest.post(`/v1/keys/${aes.KeyId}/decrypt`, {
      ciphertextBase64: made.CiphertextBlob,
      context: { file: 'report.pdf' },
    });
    t.equal(viaRest.body.plaintextBase64, made.Plaintext, 'REST opens it');
    const hidden = await aws.ok(
      'generate-data-key-without-plaintext',
      '--key-id',
      aes.KeyId,
      '--number-of-bytes',
      '16',
    );
    t.notOk('Plaintext' in hidden, 'without plaintext');
    const hiddenOpened = await aws.ok('decrypt', '--ciphertext-blob', aws.fileb(b64(hidden.CiphertextBlob)));
    t.equal(b64(hiddenOpened.Plaintext).length, 16);
  });

  t.test('re-encrypt moves a ciphertext to another key', async (t) => {
    const sealed = await aws.ok(
      'encrypt',
      '--key-id',
      aes.KeyId,
      '--plaintext',
      aws.fileb(Buffer.from('move me')),
      '--encryption-context',
      'a=1',
    );
    const moved = await aws.ok(
      're-encrypt',
      '--ciphertext-blob',
      aws.fileb(b64(sealed.CiphertextBlob)),
      '--source-encryption-context',
      'a=1',
      '--destination-key-id',
      other.Arn,
    );
    t.match(moved, {
      SourceKeyId: aes.Arn,
      KeyId: other.Arn,
      SourceEncryptionAlgorithm: 'SYMMETRIC_DEFAULT',
      DestinationEncryptionAlgorithm: 'SYMMETRIC_DEFAULT',
    });
    const opened = await aws.ok('decrypt', '--ciphertext-blob', aws.fileb(b64(moved.CiphertextBlob)));
    t.equal(b64(opened.Plaintext).toString(), 'move me');
    t.equal(opened.KeyId, other.Arn, 'the new ciphertext names the destination key');
  });

  t.test('generate-random', async (t) => {
    const [a, b] = await Promise.all([
      aws.ok('generate-random', '--number-of-bytes', '32'),
      aws.ok('generate-random', '--number-of-bytes', '32'),
    ]);
    t.equal(b64(a.Plaintext).length, 32);
    t.not(a.Plaintext, b.Plaintext);
    t.match(await refusal(aws, 'generate-random', '--number-of-bytes', '1025'), {
      exception: 'ValidationException',
    });
  });

  t.test('sign and verify, RAW and DIGEST, RSA and ECDSA; OpenSSL checks every signature', async (t) => {
    const message = Buffer.from('release 4.2.0 of the firmware, signed by the CLI');
    const cases: Array<[typeof rsa, string, string, boolean]> = [
      [rsa, 'RSASSA_PSS_SHA_256', 'sha256', true],
      [rsa, 'RSASSA_PKCS1_V1_5_SHA_384', 'sha384', false],
      [ec, 'ECDSA_SHA_256', 'sha256', false],
    ];
    for (const [k, algorithm, hash, pss] of cases) {
      const name = `${k.KeySpec} ${algorithm}`;
      const publicKey = await aws.ok('get-public-key', '--key-id', k.KeyId);
      t.match(publicKey, { KeyId: k.Arn, KeySpec: k.KeySpec, KeyUsage: 'SIGN_VERIFY' }, `${name}: get-public-key`);
      t.ok(publicKey.SigningAlgorithms.includes(algorithm));
      const der = b64(publicKey.PublicKey);
      const digest = createHash(hash).update(message).digest();
      const raw = await aws.ok(
        'sign',
        '--key-id',
        k.KeyId,
        '--message',
        aws.fileb(message),
        '--message-type',
        'RAW',
        '--signing-algorithm',
        algorithm,
      );
      t.match(raw, { KeyId: k.Arn, SigningAlgorithm: algorithm });
      const overDigest = await aws.ok(
        'sign',
        '--key-id',
        k.Arn,
        '--message',
        aws.fileb(digest),
        '--message-type',
        'DIGEST',
        '--signing-algorithm',
        algorithm,
      );
      t.ok(opensslVerifies(der, b64(raw.Signature), message, { hash, pss }), `${name}: OpenSSL verifies RAW`);
      t.ok(
        opensslVerifies(der, b64(overDigest.Signature), digest, { hash, pss, digest: true }),
        `${name}: OpenSSL verifies DIGEST over the digest`,
      );
      t.ok(
        opensslVerifies(der, b64(overDigest.Signature), message, { hash, pss }),
        `${name}: the DIGEST signature is the message's`,
      );
      const verifiedRaw = await aws.ok(
        'verify',
        '--key-id',
        k.KeyId,
        '--message',
        aws.fileb(message),
        '--signature',
        aws.fileb(b64(overDigest.Signature)),
        '--signing-algorithm',
        algorithm,
      );
      t.match(verifiedRaw, { KeyId: k.Arn, SignatureValid: true, SigningAlgorithm: algorithm });
      const verifiedDigest = await aws.ok(
        'verify',
        '--key-id',
        k.KeyId,
        '--message',
        aws.fileb(digest),
        '--message-type',
        'DIGEST',
        '--signature',
        aws.fileb(b64(raw.Signature)),
        '--signing-algorithm',
        algorithm,
      );
      t.equal(verifiedDigest.SignatureValid, true, `${name}: verify --message-type DIGEST`);
      t.match(
        await refusal(
          aws,
          'verify',
          '--key-id',
          k.KeyId,
          '--message',
          aws.fileb(Buffer.from('another message')),
          '--signature',
          aws.fileb(b64(raw.Signature)),
          '--signing-algorithm',
          algorithm,
        ),
        { code: 254, exception: 'KMSInvalidSignatureException', operation: 'Verify' },
        `${name}: another message does not verify`,
      );
    }
    t.match(
      await refusal(
        aws,
        'sign',
        '--key-id',
        rsa.KeyId,
        '--message',
        aws.fileb(message),
        '--signing-algorithm',
        'ECDSA_SHA_256',
      ),
      { exception: 'InvalidKeyUsageException' },
      'an ECDSA algorithm for an RSA key: InvalidKeyUsageException',
    );
  });

  t.test('generate-mac and verify-mac', async (t) => {
    const message = aws.fileb(Buffer.from('webhook body'));
    const mac = await aws.ok(
      'generate-mac',
      '--key-id',
      hmac.KeyId,
      '--message',
      message,
      '--mac-algorithm',
      'HMAC_SHA_256',
    );
    t.match(mac, { KeyId: hmac.Arn, MacAlgorithm: 'HMAC_SHA_256' });
    t.equal(b64(mac.Mac).length, 32);
    const verified = await aws.ok(
      'verify-mac',
      '--key-id',
      hmac.KeyId,
      '--message',
      message,
      '--mac',
      aws.fileb(b64(mac.Mac)),
      '--mac-algorithm',
      'HMAC_SHA_256',
    );
    t.match(verified, { KeyId: hmac.Arn, MacValid: true, MacAlgorithm: 'HMAC_SHA_256' });
    t.match(
      await refusal(
        aws,
        'verify-mac',
        '--key-id',
        hmac.KeyId,
        '--message',
        aws.fileb(Buffer.from('another body')),
        '--mac',
        aws.fileb(b64(mac.Mac)),
        '--mac-algorithm',
        'HMAC_SHA_256',
      ),
      { code: 254, exception: 'KMSInvalidMacException', operation: 'VerifyMac' },
    );
  });

  t.test('aliases by name and by ARN: create, list, use, update, delete', async (t) => {
    const alias = 'alias/cli-orders';
    const aliasArn = `arn:aws:kms:${REGION}:${ACCOUNT}:${alias}`;
    t.same(await aws.ok('create-alias', '--alias-name', alias, '--target-key-id', aes.KeyId), undefined, 'no output');
    t.match(await refusal(aws, 'create-alias', '--alias-name', alias, '--target-key-id', other.KeyId), {
      code: 254,
      exception: 'AlreadyExistsException',
      operation: 'CreateAlias',
    });
    const listed = await aws.ok('list-aliases', '--key-id', aes.KeyId);
    t.match(listed.Aliases, [{ AliasName: alias, AliasArn: aliasArn, TargetKeyId: aes.KeyId }]);
    t.ok(Date.parse(listed.Aliases[0].CreationDate) > 0, 'CreationDate reads as a time');
    t.match(await aws.ok('describe-key', '--key-id', aliasArn), { KeyMetadata: { KeyId: aes.KeyId } }, 'by alias ARN');
    const byName = await aws.ok('encrypt', '--key-id', alias, '--plaintext', aws.fileb(Buffer.from('x')));
    t.equal(byName.KeyId, aes.Arn, 'encrypt by alias name answers the key it used');
    await aws.ok('update-alias', '--alias-name', alias, '--target-key-id', other.Arn);
    const byArn = await aws.ok('encrypt', '--key-id', aliasArn, '--plaintext', aws.fileb(Buffer.from('x')));
    t.equal(byArn.KeyId, other.Arn, 'after update-alias the alias ARN names the other key');
    const all = await aws.ok('list-aliases');
    t.match(
      all.Aliases.filter((a: { AliasName: string }) => a.AliasName === alias),
      [{ TargetKeyId: other.KeyId }],
    );
    // DeleteAlias takes alias/NAME only, as AWS's API reference says (moto refuses an ARN there too).
    t.match(await refusal(aws, 'delete-alias', '--alias-name', aliasArn), {
      exception: 'ValidationException',
    });
    await aws.ok('delete-alias', '--alias-name', alias);
    t.match(await refusal(aws, 'describe-key', '--key-id', alias), {
      code: 254,
      exception: 'NotFoundException',
    });
    t.same((await aws.ok('list-aliases', '--key-id', other.KeyId)).Aliases, [], 'gone from list-aliases');
  });

  t.test('disable-key and enable-key', async (t) => {
    const k = (await aws.ok('create-key')).KeyMetadata;
    const sealed = await aws.ok('encrypt', '--key-id', k.KeyId, '--plaintext', aws.fileb(Buffer.from('x')));
    await aws.ok('disable-key', '--key-id', k.KeyId);
    t.match((await aws.ok('describe-key', '--key-id', k.KeyId)).KeyMetadata, { KeyState: 'Disabled', Enabled: false });
    t.match(await refusal(aws, 'encrypt', '--key-id', k.KeyId, '--plaintext', aws.fileb(Buffer.from('y'))), {
      code: 254,
      exception: 'DisabledException',
      operation: 'Encrypt',
    });
    t.match(
      await refusal(aws, 'decrypt', '--ciphertext-blob', aws.fileb(b64(sealed.CiphertextBlob))),
      { exception: 'DisabledException', operation: 'Decrypt' },
      'a disabled key decrypts nothing either',
    );
    await aws.ok('enable-key', '--key-id', k.KeyId);
    t.match((await aws.ok('describe-key', '--key-id', k.KeyId)).KeyMetadata, { KeyState: 'Enabled', Enabled: true });
    const opened = await aws.ok('decrypt', '--ciphertext-blob', aws.fileb(b64(sealed.CiphertextBlob)));
    t.equal(b64(opened.Plaintext).toString(), 'x');
  });

  t.test('schedule-key-deletion --pending-window-in-days 7 and cancel-key-deletion', async (t) => {
    const k = (await aws.ok('create-key')).KeyMetadata;
    t.match(
      await refusal(aws, 'schedule-key-deletion', '--key-id', k.KeyId, '--pending-window-in-days', '6'),
      { exception: 'ValidationException' },
      'AWS allows 7 to 30 days',
    );
    const scheduled = await aws.ok('schedule-key-deletion', '--key-id', k.KeyId, '--pending-window-in-days', '7');
    t.match(scheduled, { KeyId: k.Arn, KeyState: 'PendingDeletion', PendingWindowInDays: 7 });
    const days = (Date.parse(scheduled.DeletionDate) - Date.now()) / 86_400_000;
    t.ok(days > 6.9 && days <= 7.01, `DeletionDate is in 7 days (${days})`);
    const described = (await aws.ok('describe-key', '--key-id', k.KeyId)).KeyMetadata;
    t.match(described, { KeyState: 'PendingDeletion', Enabled: false, DeletionDate: scheduled.DeletionDate });
    t.match(
      await refusal(aws, 'encrypt', '--key-id', k.KeyId, '--plaintext', aws.fileb(Buffer.from('x'))),
      { exception: 'KMSInvalidStateException' },
      'a key pending deletion encrypts nothing',
    );
    t.same(await aws.ok('cancel-key-deletion', '--key-id', k.KeyId), { KeyId: k.Arn });
    const after = (await aws.ok('describe-key', '--key-id', k.KeyId)).KeyMetadata;
    t.match(after, { KeyState: 'Disabled', Enabled: false });
    t.notOk('DeletionDate' in after, 'no DeletionDate once cancelled');
  });

  t.test('tag-resource, list-resource-tags, untag-resource', async (t) => {
    await aws.ok(
      'tag-resource',
      '--key-id',
      other.KeyId,
      '--tags',
      'TagKey=env,TagValue=prod',
      'TagKey=owner,TagValue=ops',
    );
    const tags = await aws.ok('list-resource-tags', '--key-id', other.KeyId);
    t.same(
      [...tags.Tags].sort((a: { TagKey: string }, b: { TagKey: string }) => a.TagKey.localeCompare(b.TagKey)),
      [
        { TagKey: 'env', TagValue: 'prod' },
        { TagKey: 'owner', TagValue: 'ops' },
      ],
    );
    await aws.ok('untag-resource', '--key-id', other.Arn, '--tag-keys', 'env');
    t.same((await aws.ok('list-resource-tags', '--key-id', other.KeyId)).Tags, [{ TagKey: 'owner', TagValue: 'ops' }]);
    t.same((await rest.get(`/v1/keys/${other.KeyId}`)).body.tags, { owner: 'ops' }, 'REST reads the same tags');
  });

  t.test('rotate-key-on-demand: a new version encrypts; what the old one made still decrypts', async (t) => {
    const k = (await aws.ok('create-key')).KeyMetadata;
    const before = await aws.ok('encrypt', '--key-id', k.KeyId, '--plaintext', aws.fileb(Buffer.from('v1')));
    t.same(await aws.ok('rotate-key-on-demand', '--key-id', k.KeyId), { KeyId: k.KeyId });
    t.equal((await rest.get(`/v1/keys/${k.KeyId}`)).body.currentVersion, 2, 'REST reads version 2');
    const opened = await aws.ok('decrypt', '--ciphertext-blob', aws.fileb(b64(before.CiphertextBlob)));
    t.equal(b64(opened.Plaintext).toString(), 'v1');
    const after = await aws.ok('encrypt', '--key-id', k.KeyId, '--plaintext', aws.fileb(Buffer.from('v2')));
    const viaRest = await rest.post(`/v1/keys/${k.KeyId}/decrypt`, { ciphertextBase64: after.CiphertextBlob });
    t.equal(Buffer.from(viaRest.body.plaintextBase64, 'base64').toString(), 'v2');
  });

  t.test('refusals name the AWS exception', async (t) => {
    t.match(await refusal(aws, 'describe-key', '--key-id', '00000000-0000-4000-8000-000000000000'), {
      code: 254,
      exception: 'NotFoundException',
      operation: 'DescribeKey',
    });
    t.match(await refusal(aws, 'describe-key', '--key-id', 'not-a-key'), {
      exception: 'NotFoundException',
    });
    const wrongSecret = await awsCli(t, door, { ...key, secretAccessKey: `${key.secretAccessKey}x` }, REGION);
    t.match(await refusal(wrongSecret!, 'list-keys'), {
      code: 254,
      exception: 'InvalidSignatureException',
      operation: 'ListKeys',
    });
    const unknown = await awsCli(t, door, { accessKeyId: 'AKSVUNKNOWNKEY000000', secretAccessKey: 'x' }, REGION);
    t.match(await refusal(unknown!, 'list-keys'), { exception: 'UnrecognizedClientException' });
  });
});
