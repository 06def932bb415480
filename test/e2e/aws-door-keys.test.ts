import {
  CancelKeyDeletionCommand,
  CreateAliasCommand,
  CreateKeyCommand,
  DeleteAliasCommand,
  DescribeKeyCommand,
  DisableKeyCommand,
  EnableKeyCommand,
  EncryptCommand,
  DecryptCommand,
  ListAliasesCommand,
  ListKeysCommand,
  ListResourceTagsCommand,
  RotateKeyOnDemandCommand,
  ScheduleKeyDeletionCommand,
  TagResourceCommand,
  UntagResourceCommand,
  UpdateAliasCommand,
} from '@aws-sdk/client-kms';
import t from 'tap';
import { accessKeyFor, kmsClient, failure } from '../helpers/aws-kms.ts';
import { startTestService } from '../helpers/service.ts';

/**
 * The AWS door's key model as the AWS SDK (@aws-sdk/client-kms) uses it by endpoint override: keys,
 * their states, aliases by name and ARN, tags, rotation and scheduled deletion, with AWS's shapes and
 * exception names, and the same keys seen over REST.
 */

t.test('keys over the AWS door', async (t) => {
  const svc = await startTestService();
  t.teardown(() => svc.stop());
  const kms = kmsClient(svc, await accessKeyFor(svc, 'alice'), 'eu-central-1');
  const rest = svc.client('alice');

  t.test('CreateKey answers KeyMetadata with an ARN in the signed region; DescribeKey reads it back', async (t) => {
    const created = await kms.send(
      new CreateKeyCommand({ Description: 'payments', Tags: [{ TagKey: 'team', TagValue: 'payments' }] }),
    );
    const meta = created.KeyMetadata!;
    t.match(meta, {
      AWSAccountId: '000000000000',
      KeyId: /^[0-9a-f-]{36}$/,
      Arn: `arn:aws:kms:eu-central-1:000000000000:key/${meta.KeyId}`,
      Enabled: true,
      Description: 'payments',
      KeyUsage: 'ENCRYPT_DECRYPT',
      KeyState: 'Enabled',
      Origin: 'AWS_KMS',
      KeyManager: 'CUSTOMER',
      KeySpec: 'SYMMETRIC_DEFAULT',
      EncryptionAlgorithms: ['SYMMETRIC_DEFAULT'],
    });
    t.type(meta.CreationDate, Date);
    const over = await rest.get(`/v1/keys/${meta.KeyId}`);
    t.match(over.body, { state: 'Active', spec: { algorithm: 'AES', sizeBits: 256 }, tags: { team: 'payments' } });
    const other = kmsClient(svc, await accessKeyFor(svc, 'alice'), 'us-west-2');
    const described = await other.send(new DescribeKeyCommand({ KeyId: meta.Arn }));
    t.equal(
      described.KeyMetadata!.Arn,
      `arn:aws:kms:us-west-2:000000000000:key/${meta.KeyId}`,
      'the ARN names the caller region',
    );
  });

  t.test('every KeySpec AWS names, each with its KeyUsage and algorithms', async (t) => {
    const cases: Array<[string, string, Record<string, unknown>]> = [
      [
        'RSA_2048',
        'SIGN_VERIFY',
        {
          SigningAlgorithms: [
            'RSASSA_PSS_SHA_256',
            'RSASSA_PSS_SHA_384',
            'RSASSA_PSS_SHA_512',
            'RSASSA_PKCS1_V1_5_SHA_256',
            'RSASSA_PKCS1_V1_5_SHA_384',
            'RSASSA_PKCS1_V1_5_SHA_512',
          ],
        },
      ],
      ['ECC_NIST_P256', 'SIGN_VERIFY', { SigningAlgorithms: ['ECDSA_SHA_256'] }],
      ['ECC_NIST_P384', 'SIGN_VERIFY', { SigningAlgorithms: ['ECDSA_SHA_384'] }],
      ['ECC_NIST_P521', 'SIGN_VERIFY', { SigningAlgorithms: ['ECDSA_SHA_512'] }],
      ['ECC_SECG_P256K1', 'SIGN_VERIFY', { SigningAlgorithms: ['ECDSA_SHA_256'] }],
      ['ECC_NIST_EDWARDS25519', 'SIGN_VERIFY', { SigningAlgorithms: ['ED25519_SHA_512'] }],
      ['HMAC_256', 'GENERATE_VERIFY_MAC', { MacAlgorithms: ['HMAC_SHA_256'] }],
      ['HMAC_384', 'GENERATE_VERIFY_MAC', { MacAlgorithms: ['HMAC_SHA_384'] }],
      ['HMAC_512', 'GENERATE_VERIFY_MAC', { MacAlgorithms: ['HMAC_SHA_512'] }],
    ];
    for (const [KeySpec, KeyUsage, algorithms] of cases) {
      const created = await kms.send(new CreateKeyCommand({ KeySpec: KeySpec as never, KeyUsage: KeyUsage as never }));
      t.match(created.KeyMetadata, { KeySpec, KeyUsage, KeyState: 'Enabled', ...algorithms }, KeySpec);
    }
    t.match(await failure(kms.send(new CreateKeyCommand({ KeySpec: 'RSA_2048', KeyUsage: 'ENCRYPT_DECRYPT' }))), {
      name: 'ValidationException',
      message: /RSA keys here sign and verify/,
    });
    t.match(await failure(kms.send(new CreateKeyCommand({ KeySpec: 'SM2' as never }))), {
      name: 'ValidationException',
      message: /KeySpec must be one of/,
    });
    t.match(await failure(kms.send(new CreateKeyCommand({ Origin: 'AWS_CLOUDHSM' }))), {
      name: 'UnsupportedOperationException',
    });
    t.match(await failure(kms.send(new CreateKeyCommand({ MultiRegion: true }))), {
      name: 'UnsupportedOperationException',
    });
  });

  t.test('ListKeys pages with Limit and Marker, and leaves deleted keys out', async (t) => {
    const ids = new Set<string>();
    for (let i = 0; i < 3; i++) ids.add((await kms.send(new CreateKeyCommand({}))).KeyMetadata!.KeyId!);
    const seen: string[] = [];
    let marker: string | undefined;
    let pages = 0;
    do {
      const page = await kms.send(new ListKeysCommand({ Limit: 2, ...(marker ? { Marker: marker } : {}) }));
      pages++;
      for (const k of page.Keys!) {
        t.equal(k.KeyArn, `arn:aws:kms:eu-central-1:000000000000:key/${k.KeyId}`);
        seen.push(k.KeyId!);
      }
      marker = page.Truncated ? page.NextMarker : undefined;
    } while (marker);
    t.ok(pages > 1, 'more than one page');
    for (const id of ids) t.ok(seen.includes(id), `${id} listed`);
    t.equal(new Set(seen).size, seen.length, 'no key twice');
  });

  t.test('aliases by name and by ARN; AlreadyExists, UpdateAlias, ListAliases, DeleteAlias', async (t) => {
    const a = (await kms.send(new CreateKeyCommand({}))).KeyMetadata!;
    const b = (await kms.send(new CreateKeyCommand({}))).KeyMetadata!;
    await kms.send(new CreateAliasCommand({ AliasName: 'alias/orders', TargetKeyId: a.KeyId }));
    t.match(await failure(kms.send(new CreateAliasCommand({ AliasName: 'alias/orders', TargetKeyId: b.KeyId }))), {
      name: 'AlreadyExistsException',
    });
    const byName = await kms.send(new EncryptCommand({ KeyId: 'alias/orders', Plaintext: Buffer.from('one') }));
    t.equal(byName.KeyId, a.Arn, 'Encrypt by alias answers the key it used');
    const aliasArn = 'arn:aws:kms:eu-central-1:000000000000:alias/orders';
    t.equal((await kms.send(new DescribeKeyCommand({ KeyId: aliasArn }))).KeyMetadata!.KeyId, a.KeyId, 'by alias ARN');
    await kms.send(new UpdateAliasCommand({ AliasName: 'alias/orders', TargetKeyId: b.Arn }));
    const moved = await kms.send(new EncryptCommand({ KeyId: aliasArn, Plaintext: Buffer.from('two') }));
    t.equal(moved.KeyId, b.Arn, 'after UpdateAlias the alias names the other key');
    const opened = await kms.send(new DecryptCommand({ CiphertextBlob: byName.CiphertextBlob }));
    t.equal(Buffer.from(opened.Plaintext!).toString(), 'one', 'what the first key made still opens, without a KeyId');
    const listed = await kms.send(new ListAliasesCommand({ KeyId: b.KeyId }));
    t.match(listed.Aliases, [{ AliasName: 'alias/orders', AliasArn: aliasArn, TargetKeyId: b.KeyId }]);
    t.type(listed.Aliases![0]!.CreationDate, Date);
    await kms.send(new DeleteAliasCommand({ AliasName: 'alias/orders' }));
    t.match(await failure(kms.send(new DescribeKeyCommand({ KeyId: 'alias/orders' }))), { name: 'NotFoundException' });
    t.match(
      await failure(kms.send(new DescribeKeyCommand({ KeyId: 'arn:aws:kms:eu-central-1:123456789012:alias/orders' }))),
      {
        name: 'NotFoundException',
        message: /account 123456789012/,
      },
    );
  });

  t.test(
    'tags: TagResource merges, UntagResource removes, ListResourceTags reads (the description is not a tag)',
    async (t) => {
      const key = (await kms.send(new CreateKeyCommand({ Description: 'd', Tags: [{ TagKey: 'a', TagValue: '1' }] })))
        .KeyMetadata!;
      await kms.send(new TagResourceCommand({ KeyId: key.Arn, Tags: [{ TagKey: 'b', TagValue: '2' }] }));
      await kms.send(new UntagResourceCommand({ KeyId: key.KeyId, TagKeys: ['a'] }));
      const tags = await kms.send(new ListResourceTagsCommand({ KeyId: key.KeyId }));
      t.same(tags.Tags, [{ TagKey: 'b', TagValue: '2' }]);
      t.equal(tags.Truncated, false);
      t.match(
        await failure(
          kms.send(new TagResourceCommand({ KeyId: key.KeyId, Tags: [{ TagKey: 'aws:x', TagValue: '' }] })),
        ),
        {
          name: 'ValidationException',
          message: /reserved/,
        },
      );
      t.equal((await rest.get(`/v1/keys/${key.KeyId}`)).body.tags.b, '2', 'REST reads the same tags');
    },
  );

  t.test('DisableKey: Encrypt is DisabledException until EnableKey', async (t) => {
    const key = (await kms.send(new CreateKeyCommand({}))).KeyMetadata!;
    await kms.send(new DisableKeyCommand({ KeyId: key.KeyId }));
    t.match((await kms.send(new DescribeKeyCommand({ KeyId: key.KeyId }))).KeyMetadata, {
      KeyState: 'Disabled',
      Enabled: false,
    });
    t.match(await failure(kms.send(new EncryptCommand({ KeyId: key.KeyId, Plaintext: Buffer.from('x') }))), {
      name: 'DisabledException',
      status: 400,
    });
    await kms.send(new EnableKeyCommand({ KeyId: key.KeyId }));
    t.ok((await kms.send(new EncryptCommand({ KeyId: key.KeyId, Plaintext: Buffer.from('x') }))).CiphertextBlob);
  });

  t.test('ScheduleKeyDeletion (7..30 days) and CancelKeyDeletion', async (t) => {
    const key = (await kms.send(new CreateKeyCommand({}))).KeyMetadata!;
    const sealed = await kms.send(new EncryptCommand({ KeyId: key.KeyId, Plaintext: Buffer.from('kept') }));
    t.match(await failure(kms.send(new ScheduleKeyDeletionCommand({ KeyId: key.KeyId, PendingWindowInDays: 6 }))), {
      name: 'ValidationException',
    });
    const scheduled = await kms.send(new ScheduleKeyDeletionCommand({ KeyId: key.KeyId, PendingWindowInDays: 7 }));
    t.match(scheduled, { KeyId: key.Arn, KeyState: 'PendingDeletion', PendingWindowInDays: 7 });
    const days = (scheduled.DeletionDate!.getTime() - Date.now()) / 86_400_000;
    t.ok(days > 6.9 && days <= 7.01, `deleted in 7 days (${days})`);
    t.match((await kms.send(new DescribeKeyCommand({ KeyId: key.KeyId }))).KeyMetadata, {
      KeyState: 'PendingDeletion',
      DeletionDate: Date,
    });
    t.match(await failure(kms.send(new DecryptCommand({ CiphertextBlob: sealed.CiphertextBlob }))), {
      name: 'KMSInvalidStateException',
    });
    t.match(await kms.send(new CancelKeyDeletionCommand({ KeyId: key.KeyId })), { KeyId: key.Arn });
    t.match((await kms.send(new DescribeKeyCommand({ KeyId: key.KeyId }))).KeyMetadata, { KeyState: 'Disabled' });
    const opened = await kms.send(new DecryptCommand({ CiphertextBlob: sealed.CiphertextBlob }));
    t.equal(Buffer.from(opened.Plaintext!).toString(), 'kept', 'after the cancel it decrypts what it made');
    t.match(await failure(kms.send(new EnableKeyCommand({ KeyId: key.KeyId }))), {
      name: 'KMSInvalidStateException',
      message: /never encrypts or signs again/,
    });
  });

  t.test('RotateKeyOnDemand: new ciphertexts use the new version; old ones still decrypt', async (t) => {
    const key = (await kms.send(new CreateKeyCommand({}))).KeyMetadata!;
    const before = await kms.send(new EncryptCommand({ KeyId: key.KeyId, Plaintext: Buffer.from('v1') }));
    t.match(await kms.send(new RotateKeyOnDemandCommand({ KeyId: key.KeyId })), { KeyId: key.KeyId });
    t.equal((await rest.get(`/v1/keys/${key.KeyId}`)).body.currentVersion, 2);
    const opened = await kms.send(new DecryptCommand({ CiphertextBlob: before.CiphertextBlob }));
    t.equal(Buffer.from(opened.Plaintext!).toString(), 'v1');
  });

  t.test('a KeyId that is neither id, ARN nor alias is NotFoundException, never a 5xx', async (t) => {
    for (const KeyId of ['not-a-key', 'arn:aws:kms:eu-central-1:000000000000:key/nope', 'alias/', '1234'])
      t.match(
        await failure(kms.send(new DescribeKeyCommand({ KeyId }))),
        { name: 'NotFoundException', status: 400 },
        KeyId,
      );
  });
});
