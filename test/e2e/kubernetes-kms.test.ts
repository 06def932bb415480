import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, lstatSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import t, { type Test } from 'tap';
import { type EncryptResponse, GrpcStatus, k8sKmsClient, refusalOf } from '../helpers/k8s-kms-client.ts';
import { startTestService, type TestService, tempDir } from '../helpers/service.ts';

/**
 * The Kubernetes KMS v2 plugin as kube-apiserver uses it: a gRPC client on the KMS v2 service definition calls
 * Status, Encrypt and Decrypt on the Unix socket; every call runs as the configured Service principal through the
 * one pipeline (policy, audit with door k8s), and every failure is a gRPC status within the call's deadline.
 */

const ALIAS = 'alias/kubernetes';
const PRINCIPAL = 'kube-apiserver';

async function k8sService(t: Test, env: Record<string, string> = {}) {
  const dir = tempDir();
  const socket = path.join(dir, 'kms.sock');
  const svc = await startTestService(
    { SVC_K8S_KMS_SOCKET: socket, SVC_K8S_KMS_KEY_ID: ALIAS, SVC_K8S_KMS_PRINCIPAL: PRINCIPAL, ...env },
    { dir },
  );
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await svc.stop();
  };
  t.teardown(stop);
  const kms = k8sKmsClient(socket);
  t.teardown(() => kms.close());
  return { svc, socket, kms, stop };
}

/** An active AES-256 key of `owner`, named by the alias the plugin is configured with. */
async function aliasedKey(svc: TestService, owner = 'alice', alias = ALIAS): Promise<string> {
  const client = svc.client(owner);
  const id = await client.key({ algorithm: 'AES', sizeBits: 256 });
  const put = await client.call('PUT', `/v1/aliases/${encodeURIComponent(alias)}`, { keyId: id });
  if (put.status !== 200) throw new Error(`alias failed: ${put.status} ${JSON.stringify(put.body)}`);
  return id;
}

const recordsOf = async (svc: TestService, keyId: string): Promise<any[]> =>
  (await svc.client('auditor').get(`/v1/audit?key=${keyId}&limit=500`)).body.records;

t.test('kube-apiserver encrypts and decrypts through the plugin, as one audited Service', async (t) => {
  const { svc, socket, kms } = await k8sService(t);
  const alice = svc.client('alice');

  t.test('the socket is a socket of mode 0600', async (t) => {
    t.ok(lstatSync(socket).isSocket());
    t.equal(statSync(socket).mode & 0o777, 0o600);
  });

  t.test('Status before the key exists: NOT_FOUND, with the reason', async (t) => {
    const refused = await refusalOf(kms.status());
    t.equal(refused.code, GrpcStatus.NOT_FOUND);
    t.match(refused.details, /^KeyNotFound: /);
  });

  const keyId = await aliasedKey(svc);
  const plaintext = randomBytes(32);
  const uid = randomUUID();
  let first: EncryptResponse;

  t.test('Status, Encrypt and Decrypt: the plaintext round-trips; key_id names the key and version', async (t) => {
    t.same(await kms.status(), { version: 'v2', healthz: 'ok', key_id: `${keyId}:v1` });
    first = await kms.encrypt(plaintext, uid);
    t.equal(first.key_id, `${keyId}:v1`, 'Encrypt answers the key_id Status reports');
    t.same(first.annotations, {});
    t.ok(
      first.ciphertext.length <= 1024,
      `the ciphertext (${first.ciphertext.length} bytes) fits kube-apiserver's 1 kB`,
    );
    const opened = await kms.decrypt(first.ciphertext, { uid: randomUUID(), key_id: first.key_id });
    t.ok(opened.plaintext.equals(plaintext), 'Decrypt answers the plaintext');
  });

  t.test('each call is audited as the Service, door k8s, under the uid; no plaintext in the trail', async (t) => {
    const records = await recordsOf(svc, keyId);
    const encrypt = records.find((r) => r.correlationId === uid);
    t.match(encrypt, {
      operation: 'Encrypt',
      outcome: 'Success',
      principal: { subject: PRINCIPAL, kind: 'Service' },
      context: { door: 'k8s', 'k8s.method': 'Encrypt', alias: ALIAS, keyVersion: '1', plaintextLength: '32' },
    });
    const status = records.filter((r) => r.context['k8s.method'] === 'Status');
    t.same(status.map((r) => r.operation).sort(), ['Decrypt', 'Encrypt'], 'Status is one encrypt and decrypt');
    t.equal(new Set(status.map((r) => r.correlationId)).size, 1, 'under one request id');
    const trail = JSON.stringify(records);
    for (const form of ['base64', 'hex', 'base64url'] as const)
      t.notOk(trail.includes(plaintext.toString(form)), `the plaintext (${form}) is in no record`);
  });

  t.test('after a rotation, Status and Encrypt report the new version; old ciphertexts still decrypt', async (t) => {
    t.equal((await alice.post(`/v1/keys/${keyId}/rotate`, {})).status, 200);
    t.equal((await kms.status()).key_id, `${keyId}:v2`);
    const second = await kms.encrypt(randomBytes(32), randomUUID());
    t.equal(second.key_id, `${keyId}:v2`);
    const opened = await kms.decrypt(first.ciphertext, { uid: randomUUID(), key_id: first.key_id });
    t.ok(opened.plaintext.equals(plaintext), 'the version 1 ciphertext opens');
    const misnamed = await kms.decrypt(first.ciphertext, {
      key_id: 'some-other-key:v9',
      annotations: { 'kms.example.com': Buffer.from('ignored') },
    });
    t.ok(misnamed.plaintext.equals(plaintext), 'key_id and annotations do not choose the key: the ciphertext does');
  });

  t.test('refusals of bad input are INVALID_ARGUMENT, audited; the service answers on', async (t) => {
    const cases: Array<[string, Promise<unknown>, RegExp]> = [
      ['an empty plaintext', kms.encrypt(Buffer.alloc(0)), /^InvalidField: plaintext is 0 bytes/],
      ['a plaintext over 512 bytes', kms.encrypt(randomBytes(513)), /^InvalidField: plaintext is 513 bytes/],
      ['an empty ciphertext', kms.decrypt(Buffer.alloc(0)), /^InvalidField: ciphertext is 0 bytes/],
      ['a ciphertext over 1 kB', kms.decrypt(randomBytes(1025)), /^InvalidField: ciphertext is 1025 bytes/],
      ['ciphertext garbage', kms.decrypt(randomBytes(64)), /^DecryptionFailed: /],
      [
        'garbage that names a key this service does not hold',
        kms.decrypt(Buffer.concat([Buffer.from('K'), randomBytes(80)])),
        /^DecryptionFailed: the ciphertext names key [0-9a-f-]{36}, which this service does not hold/,
      ],
      [
        'a ciphertext whose envelope was altered',
        kms.decrypt(Buffer.from(first.ciphertext.map((b, i) => (i === first.ciphertext.length - 1 ? b ^ 1 : b)))),
        /^DecryptionFailed: /,
      ],
    ];
    for (const [what, call, message] of cases) {
      const refused = await refusalOf(call);
      t.equal(refused.code, GrpcStatus.INVALID_ARGUMENT, what);
      t.match(refused.details, message, what);
    }
    const big = await refusalOf(kms.encrypt(randomBytes(100 * 1024)));
    t.equal(big.code, GrpcStatus.RESOURCE_EXHAUSTED, 'a 100 kB message is refused by gRPC before the plugin reads it');
    const records = await recordsOf(svc, keyId);
    t.ok(
      records.some((r) => r.operation === 'Encrypt' && r.outcome === 'InvalidField' && r.context.door === 'k8s'),
      'the bad plaintexts are audited as refused Encrypts, door k8s',
    );
    t.ok(
      records.some((r) => r.operation === 'Decrypt' && r.outcome === 'DecryptionFailed' && r.context.door === 'k8s'),
      'the garbage ciphertext is audited as a failed Decrypt',
    );
    t.equal((await kms.status()).healthz, 'ok', 'the service answers the next call');
  });

  t.test('raw garbage bytes on the socket crash nothing; the next call is answered', async (t) => {
    const junk = [
      randomBytes(4096),
      Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'),
      // The HTTP/2 preface, then a frame header announcing 16 MB of a frame type that does not exist.
      Buffer.concat([
        Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'),
        Buffer.from([0xff, 0xff, 0xff, 0x63, 0, 0, 0, 0, 1]),
      ]),
    ];
    for (const bytes of junk) {
      const closed = await new Promise<boolean>((resolve) => {
        const raw = connect(socket, () => raw.end(bytes));
        raw.on('error', () => undefined);
        raw.resume();
        raw.on('close', () => resolve(true));
        setTimeout(() => {
          raw.destroy();
          resolve(false);
        }, 3000).unref();
      });
      t.ok(closed, 'the plugin closes the connection');
    }
    t.same(await kms.status(), { version: 'v2', healthz: 'ok', key_id: `${keyId}:v2` });
  });

  t.test('a disabled key: Encrypt and Status are FAILED_PRECONDITION, audited; enabled, they work again', async (t) => {
    t.equal((await alice.post(`/v1/keys/${keyId}/disable`, { reason: 'etcd restore drill' })).status, 200);
    const encrypt = await refusalOf(kms.encrypt(randomBytes(32), randomUUID()));
    t.equal(encrypt.code, GrpcStatus.FAILED_PRECONDITION);
    t.match(encrypt.details, /^IllegalOperation: key [0-9a-f-]{36} is disabled/);
    t.equal((await refusalOf(kms.status())).code, GrpcStatus.FAILED_PRECONDITION, 'Status reports it too');
    const records = await recordsOf(svc, keyId);
    t.ok(
      records.some(
        (r) =>
          r.operation === 'Encrypt' &&
          r.outcome === 'IllegalOperation' &&
          r.context.door === 'k8s' &&
          r.context['k8s.method'] === 'Encrypt' &&
          r.principal.subject === PRINCIPAL,
      ),
      'the refused Encrypt is audited',
    );
    t.equal((await alice.post(`/v1/keys/${keyId}/enable`)).status, 200);
    t.equal((await kms.status()).healthz, 'ok');
  });

  t.test('moving the alias moves new writes to the other key; old ciphertexts open under their own', async (t) => {
    const next = await alice.key({ algorithm: 'AES', sizeBits: 256 });
    t.equal((await alice.call('PUT', `/v1/aliases/${encodeURIComponent(ALIAS)}`, { keyId: next })).status, 200);
    t.equal((await kms.status()).key_id, `${next}:v1`);
    t.equal((await kms.encrypt(randomBytes(32))).key_id, `${next}:v1`);
    t.ok((await kms.decrypt(first.ciphertext)).plaintext.equals(plaintext));
  });
});

t.test('a stopped service, or a path nothing serves: UNAVAILABLE within the deadline, never a hang', async (t) => {
  const { svc, socket, kms, stop } = await k8sService(t);
  await aliasedKey(svc);
  t.equal((await kms.status()).healthz, 'ok');
  await stop();
  t.notOk(existsSync(socket), 'stop removes the socket');
  for (const [what, client] of [
    ['the stopped service, on a connection it had', kms],
    ['the stopped service, on a new connection', k8sKmsClient(socket, 2_000)],
    ['a path where nothing listens', k8sKmsClient(path.join(tempDir(), 'nothing.sock'), 2_000)],
  ] as const) {
    const started = Date.now();
    const refused = await refusalOf(client.status());
    t.equal(refused.code, GrpcStatus.UNAVAILABLE, what);
    t.ok(Date.now() - started < 5_000, `${what}: answered in ${Date.now() - started} ms`);
    client.close();
  }
});

t.test('the policy decides: a call the principal may not make is PERMISSION_DENIED, audited', async (t) => {
  const { svc, kms } = await k8sService(t, {
    SVC_POLICY_KIND: 'role-based',
    SVC_POLICY_SUBJECT_BINDINGS: JSON.stringify({
      alice: ['Create', 'Activate', 'Get', 'AddAttribute', 'Rotate'],
      auditor: ['Query'],
      // Encrypt only: Decrypt (and so the Status round trip) is refused.
      [PRINCIPAL]: { operations: ['Encrypt'], keys: ['name:test-key-*'] },
    }),
  });
  const keyId = await aliasedKey(svc);
  const sealed = await kms.encrypt(randomBytes(32), randomUUID());
  t.equal(sealed.key_id, `${keyId}:v1`, 'Encrypt is allowed');
  const uid = randomUUID();
  const decrypt = await refusalOf(kms.decrypt(sealed.ciphertext, { uid }));
  t.equal(decrypt.code, GrpcStatus.PERMISSION_DENIED);
  t.match(decrypt.details, /^PermissionDenied: /);
  t.equal((await refusalOf(kms.status())).code, GrpcStatus.PERMISSION_DENIED, 'Status fails its round trip');
  t.match(
    (await recordsOf(svc, keyId)).find((r) => r.correlationId === uid),
    {
      operation: 'Decrypt',
      outcome: 'PermissionDenied',
      principal: { subject: PRINCIPAL, kind: 'Service' },
      context: { door: 'k8s', 'k8s.method': 'Decrypt' },
    },
  );
});
