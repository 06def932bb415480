import { createDecipheriv, randomBytes } from 'node:crypto';
import {
  CreateAliasCommand,
  CreateKeyCommand,
  DecryptCommand,
  DescribeKeyCommand,
  EncryptCommand,
  ScheduleKeyDeletionCommand,
} from '@aws-sdk/client-kms';
import { SignatureV4 } from '@smithy/signature-v4';
import t from 'tap';
import { wrapKeyMaterial } from '../../clients/sdk/index.ts';
import { type AccessKey, kmsClient, Sha256, signedRequest } from '../helpers/aws-kms.ts';
import { importParameters } from '../helpers/byok.ts';
import { ApiClient } from '../helpers/client.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

/**
 * An attacker's review of the AWS KMS door, access keys and import into a waiting key: each test is an
 * attack that worked before its fix and asserts what the attacker must not achieve.
 */

const HMAC = { SVC_AUTH_KIND: 'hmac', SVC_AUTH_HMAC_SECRET: TEST_SECRET, SVC_RISK_ENABLED: 'false' };
const as = async (svc: TestService, claims: Record<string, unknown>, jti?: string) =>
  new ApiClient(svc.url, {
    Authorization: `Bearer ${await mintToken(claims, { ttlSeconds: 3600, ...(jti ? { jti } : {}) })}`,
  });
const keyOf = (body: any): AccessKey => ({ accessKeyId: body.accessKeyId, secretAccessKey: body.secretAccessKey });
const outcome = async <T>(promise: Promise<T>) =>
  promise.then(
    (value) => ({ ok: true as const, value, name: 'no error' }),
    (err: Error) => ({ ok: false as const, value: undefined, name: err.name }),
  );

/** A role-based deployment in the spirit of compose.yaml: key admins who "use no key", people and Services bound by subject. */
const rolePolicy = {
  ...HMAC,
  SVC_POLICY_KIND: 'role-based',
  SVC_POLICY_ROLE_BINDINGS: JSON.stringify({
    // Create keys and access keys, but use no key (compose.yaml's kms-admins, narrowed).
    'key-admins': ['Create', 'Query'],
    'service-owners': ['Create', 'Activate', 'Get', 'Encrypt', 'Decrypt'],
  }),
  SVC_POLICY_SUBJECT_BINDINGS: JSON.stringify({
    // A person whose rights are her own keys, as docs/policy.md's example binds alice.
    alice: { operations: ['Create', 'Activate', 'Get', 'Encrypt', 'Decrypt'], keys: ['owner:self'] },
    // A Service bound by subject, as docs/auth.md tells operators to bind a Service's access key.
    'payments-app': ['Get', 'Decrypt'],
  }),
};

t.test('a key admin cannot mint a Service access key named like a Human and act as that Human', async (t) => {
  const svc = await startTestService(rolePolicy);
  t.teardown(() => svc.stop());
  const alice = await as(svc, { sub: 'alice' });
  const bob = await as(svc, { sub: 'bob', svc_groups: ['key-admins'] });
  const key = await alice.post('/v1/keys', { spec: { algorithm: 'AES', sizeBits: 256 }, activate: true });
  t.equal(key.status, 201, 'alice creates her key');
  const sealed = await alice.post(`/v1/keys/${key.body.id}/encrypt`, {
    plaintextBase64: Buffer.from('alice only').toString('base64'),
  });
  t.equal((await bob.post(`/v1/keys/${key.body.id}/decrypt`, sealed.body)).status, 403, 'bob may not decrypt');

  const minted = await bob.post('/v1/access-keys', { service: 'alice' });
  const read =
    minted.status === 201
      ? await outcome(
          kmsClient(svc, keyOf(minted.body)).send(
            new DecryptCommand({
              KeyId: key.body.id,
              CiphertextBlob: Buffer.from(sealed.body.ciphertextBase64, 'base64'),
            }),
          ),
        )
      : undefined;
  t.notOk(read?.ok, "bob does not read alice's plaintext through a key he minted for a Service called alice");
});

t.test(
  'plain Create (a key admin who uses no key) mints no access key for a Service: that needs Administer',
  async (t) => {
    const svc = await startTestService(rolePolicy);
    t.teardown(() => svc.stop());
    const owner = await as(svc, { sub: 'olga', svc_groups: ['service-owners'] });
    const bob = await as(svc, { sub: 'bob', svc_groups: ['key-admins'] });
    const id = await owner.key({ algorithm: 'AES', sizeBits: 256 });
    const sealed = await owner.post(`/v1/keys/${id}/encrypt`, {
      plaintextBase64: Buffer.from('card data').toString('base64'),
    });
    t.equal((await bob.post(`/v1/keys/${id}/decrypt`, sealed.body)).status, 403, 'bob may not decrypt');

    const minted = await bob.post('/v1/access-keys', { service: 'payments-app' });
    const read =
      minted.status === 201
        ? await outcome(
            kmsClient(svc, keyOf(minted.body)).send(
              new DecryptCommand({ KeyId: id, CiphertextBlob: Buffer.from(sealed.body.ciphertextBase64, 'base64') }),
            ),
          )
        : undefined;
    t.notOk(read?.ok, "bob, allowed only Create and Query, does not obtain payments-app's Decrypt");
  },
);

t.test("plain Create cannot import attacker-known material into another principal's waiting key", async (t) => {
  const svc = await startTestService(rolePolicy);
  t.teardown(() => svc.stop());
  const alice = await as(svc, { sub: 'alice' });
  const bob = await as(svc, { sub: 'bob', svc_groups: ['key-admins'] });
  // alice makes a key to receive the material of her own HSM (AWS: CreateKey Origin EXTERNAL).
  const waiting = await alice.post('/v1/keys', { spec: { algorithm: 'AES', sizeBits: 256 }, awaitMaterial: true });
  t.equal(waiting.status, 201, 'alice creates a key that awaits her material');
  const id = waiting.body.id as string;

  // bob, who may create keys but has no right on alice's, fills it first with material he knows.
  const known = randomBytes(32);
  const params = await importParameters(bob, { algorithm: 'AES', sizeBits: 256 });
  const injected = await bob.post(`/v1/keys/${id}/import`, {
    importToken: params.importToken,
    wrappedMaterialBase64: Buffer.from(wrapKeyMaterial(params.wrappingPublicKeyPem, known)).toString('base64'),
  });
  t.equal(injected.status, 403, `bob's import into alice's key is refused (got ${injected.status})`);

  // What follows when it is not: alice activates her key and uses it; bob reads her data offline.
  if (injected.status === 200) {
    t.equal((await alice.post(`/v1/keys/${id}/activate`)).status, 200, 'alice activates her key');
    const sealed = await alice.post(`/v1/keys/${id}/encrypt`, {
      plaintextBase64: Buffer.from('alice secret').toString('base64'),
    });
    const envelope = Buffer.from(sealed.body.ciphertextBase64, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', known, envelope.subarray(5, 17));
    decipher.setAAD(Buffer.from(`svc-kms/v1|${id}|${envelope.readUInt32BE(1)}|[]`));
    decipher.setAuthTag(envelope.subarray(17, 33));
    const opened = Buffer.concat([decipher.update(envelope.subarray(33)), decipher.final()]).toString();
    t.not(opened, 'alice secret', "bob cannot open alice's ciphertext with the material he imported");
  }
});

t.test('Decrypt with KeyId given as an alias checks the key the CiphertextBlob names', async (t) => {
  const svc = await startTestService();
  t.teardown(() => svc.stop());
  const kms = kmsClient(svc, keyOf((await svc.client('alice').post('/v1/access-keys', {})).body));
  const tenantA = (await kms.send(new CreateKeyCommand({}))).KeyMetadata!.KeyId!;
  const tenantB = (await kms.send(new CreateKeyCommand({}))).KeyMetadata!.KeyId!;
  await kms.send(new CreateAliasCommand({ AliasName: 'alias/tenant-b', TargetKeyId: tenantB }));
  // A ciphertext someone made under tenant A's key, handed to a service that pins tenant B's key by alias.
  const underA = (await kms.send(new EncryptCommand({ KeyId: tenantA, Plaintext: Buffer.from('a') }))).CiphertextBlob;

  const byId = await outcome(kms.send(new DecryptCommand({ KeyId: tenantB, CiphertextBlob: underA })));
  t.equal(byId.name, 'IncorrectKeyException', 'pinned by key id: refused (as it should be)');
  for (const keyId of [
    'alias/tenant-b',
    'arn:aws:kms:eu-central-1:000000000000:alias/tenant-b',
    'alias/names-no-key-at-all',
  ]) {
    const pinned = await outcome(kms.send(new DecryptCommand({ KeyId: keyId, CiphertextBlob: underA })));
    t.notOk(pinned.ok, `KeyId ${keyId}: the ciphertext made under another key is not decrypted`);
  }
});

t.test('X-Amz-Target must be signed: a signed DescribeKey cannot be replayed as DisableKey', async (t) => {
  const svc = await startTestService();
  t.teardown(() => svc.stop());
  const key = keyOf((await svc.client('alice').post('/v1/access-keys', {})).body);
  const kms = kmsClient(svc, key);
  const id = (await kms.send(new CreateKeyCommand({}))).KeyMetadata!.KeyId!;
  const url = new URL(`${svc.url}/aws/kms`);
  const body = JSON.stringify({ KeyId: id });
  // A request whose SignedHeaders leave out x-amz-target (host, x-amz-date and the body hash are signed).
  const signed = await new SignatureV4({
    service: 'kms',
    region: 'eu-central-1',
    sha256: Sha256,
    credentials: key,
  }).sign(
    {
      method: 'POST',
      protocol: 'http:',
      hostname: url.hostname,
      port: Number(url.port),
      path: url.pathname,
      headers: {
        host: url.host,
        'content-type': 'application/x-amz-json-1.1',
        'x-amz-target': 'TrentService.DescribeKey',
      },
      body,
    },
    { unsignableHeaders: new Set(['x-amz-target', 'content-type']) },
  );
  // Whoever sees it within 5 minutes (a proxy, a log) sends it again with another operation.
  const replayed = await fetch(url, {
    method: 'POST',
    headers: { ...(signed.headers as Record<string, string>), 'x-amz-target': 'TrentService.DisableKey' },
    body,
  });
  t.equal(replayed.status, 400, 'a request that does not sign X-Amz-Target is refused');
  t.match(await replayed.json(), { __type: 'IncompleteSignatureException' });
  t.equal(
    (await kms.send(new DescribeKeyCommand({ KeyId: id }))).KeyMetadata!.Enabled,
    true,
    'the key is still enabled',
  );
});

t.test(
  'someone holding only an access key id writes at most 10 Unauthorized audit rows a minute in its principal’s name',
  async (t) => {
    const svc = await startTestService({ ...HMAC, SVC_RATE_LIMIT_BURST: '20', SVC_RATE_LIMIT_RPS: '1' });
    t.teardown(() => svc.stop());
    const alice = await as(svc, { sub: 'alice' });
    const id = keyOf((await alice.post('/v1/access-keys', {})).body).accessKeyId;
    const count = async () =>
      ((await alice.get('/v1/audit?limit=1000')).body.records as any[]).filter(
        (r) => r.outcome === 'Unauthorized' && r.context['aws.accessKeyId'] === id,
      ).length;
    // No secret: only the id, which the audit trail, GET /v1/access-keys and client configs show.
    const types = new Set<string>();
    for (let i = 0; i < 60; i++) {
      const answer = await signedRequest(svc, { accessKeyId: id, secretAccessKey: 'guess' }, 'Encrypt', '{}');
      types.add(answer.body.__type);
    }
    const rows = await count();
    t.equal(rows, 10, `60 refused signatures in a minute write 10 audit rows in its principal's name (wrote ${rows})`);
    t.same([...types], ['InvalidSignatureException'], 'every one is refused as a bad signature');
  },
);

t.test('a refused EnableKey or ScheduleKeyDeletion is audited as the refused operation', async (t) => {
  const svc = await startTestService();
  t.teardown(() => svc.stop());
  const rest = svc.client('alice');
  const key = keyOf((await rest.post('/v1/access-keys', {})).body);
  const records = async (requestId: string) =>
    ((await rest.get('/v1/audit?limit=1000')).body.records as any[])
      .filter((r) => r.correlationId === requestId)
      .map((r) => `${r.operation} ${r.outcome}`);

  const revoked = await rest.key({ algorithm: 'AES', sizeBits: 256 });
  t.equal((await rest.post(`/v1/keys/${revoked}/revoke`, { reason: 'test' })).status, 200, 'a revoked key');
  const enable = await fetchSigned(svc, key, 'EnableKey', { KeyId: revoked });
  t.equal(enable.type, 'KMSInvalidStateException', 'EnableKey of a revoked key is refused');
  const enableRows = await records(enable.requestId);
  t.ok(
    enableRows.some((r) => r.startsWith('Enable ') && !r.endsWith('Success')),
    `the refused EnableKey is audited as a refused Enable (rows: ${enableRows.join('; ')})`,
  );

  const active = await rest.key({ algorithm: 'AES', sizeBits: 256 });
  const schedule = await fetchSigned(svc, key, 'ScheduleKeyDeletion', { KeyId: active, PendingWindowInDays: 3 });
  t.equal(schedule.type, 'ValidationException', 'a 3-day window is refused');
  const scheduleRows = await records(schedule.requestId);
  t.ok(
    scheduleRows.some((r) => r.startsWith('Destroy ') && !r.endsWith('Success')),
    `the refused ScheduleKeyDeletion is audited as a refused Destroy (rows: ${scheduleRows.join('; ')})`,
  );
});

/** A signed call whose answer's request id is needed (signedRequest drops the headers). */
async function fetchSigned(svc: TestService, key: AccessKey, operation: string, input: Record<string, unknown>) {
  const url = new URL(`${svc.url}/aws/kms`);
  const body = JSON.stringify(input);
  const signed = await new SignatureV4({
    service: 'kms',
    region: 'eu-central-1',
    sha256: Sha256,
    credentials: key,
  }).sign({
    method: 'POST',
    protocol: 'http:',
    hostname: url.hostname,
    port: Number(url.port),
    path: url.pathname,
    headers: {
      host: url.host,
      'content-type': 'application/x-amz-json-1.1',
      'x-amz-target': `TrentService.${operation}`,
    },
    body,
  });
  const res = await fetch(url, { method: 'POST', headers: signed.headers as Record<string, string>, body });
  const answer = (await res.json()) as { __type?: string };
  return { status: res.status, type: answer.__type, requestId: res.headers.get('x-amzn-requestid') ?? '' };
}

t.test('a ScheduleKeyDeletion refused for want of Destroy has not revoked the key for good', async (t) => {
  // alice may revoke (an incident responder's right) and create, but not destroy.
  const svc = await startTestService({
    ...HMAC,
    SVC_POLICY_KIND: 'role-based',
    SVC_POLICY_SUBJECT_BINDINGS: JSON.stringify({
      alice: ['Create', 'Activate', 'Get', 'Encrypt', 'Decrypt', 'Revoke'],
    }),
  });
  t.teardown(() => svc.stop());
  const alice = await as(svc, { sub: 'alice', svc_kind: 'human' });
  const created = await alice.post('/v1/access-keys', {});
  t.equal(created.status, 201);
  const kms = kmsClient(svc, keyOf(created.body));
  const key = (await kms.send(new CreateKeyCommand({}))).KeyMetadata!;
  const scheduled = await outcome(
    kms.send(new ScheduleKeyDeletionCommand({ KeyId: key.KeyId, PendingWindowInDays: 7 })),
  );
  t.equal(scheduled.name, 'AccessDeniedException', 'alice may not destroy: the schedule is refused');
  const after = await outcome(kms.send(new EncryptCommand({ KeyId: key.KeyId, Plaintext: Buffer.from('still') })));
  t.ok(after.ok, `the refused schedule left the key encrypting (got ${after.name})`);
});
