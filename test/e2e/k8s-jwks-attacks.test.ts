import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { chmodSync, chownSync, lstatSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import t, { type Test } from 'tap';
import { GrpcStatus, K8S_KMS_PROTO, k8sKmsClient, refusalOf } from '../helpers/k8s-kms-client.ts';
import { startTestService, type TestService, tempDir } from '../helpers/service.ts';
import { until } from '../helpers/until.ts';

/**
 * An attacker's review of the Kubernetes KMS v2 plugin (plugins/doors/kubernetes-kms) and of the JWKS door
 * (plugins/doors/jwks, plugins/keys/key-jwks.ts): each test is an attack, or a refusal that goes unrecorded, and
 * asserts what the attacker must not achieve. Tests marked GUARD pass today and hold behaviour that must not regress.
 */

const ALIAS = 'alias/kubernetes';
const PRINCIPAL = 'kube-apiserver';

/** Boots the plugin on `dir/kms.sock`; a boot that succeeds is stopped at teardown. */
async function bootK8s(t: Test, dir: string, env: Record<string, string> = {}): Promise<TestService> {
  const svc = await startTestService(
    { SVC_K8S_KMS_SOCKET: path.join(dir, 'kms.sock'), SVC_K8S_KMS_KEY_ID: ALIAS, ...env },
    { dir },
  );
  t.teardown(() => svc.stop());
  return svc;
}

/** The boot's refusal, or a failed assertion naming what booted when it should not have. */
async function bootRefusal(t: Test, dir: string, what: string): Promise<Error | undefined> {
  try {
    await bootK8s(t, dir);
  } catch (err) {
    return err as Error;
  }
  t.fail(`the plugin booted with ${what}`);
  return undefined;
}

async function aliasedKey(svc: TestService, owner = 'alice'): Promise<string> {
  const client = svc.client(owner);
  const id = await client.key({ algorithm: 'AES', sizeBits: 256 });
  const put = await client.call('PUT', `/v1/aliases/${encodeURIComponent(ALIAS)}`, { keyId: id });
  if (put.status !== 200) throw new Error(`alias failed: ${put.status} ${JSON.stringify(put.body)}`);
  return id;
}

const publicSet = async (url: string) => {
  const res = await fetch(`${url}/.well-known/jwks.json`);
  if (res.status !== 200) throw new Error(`jwks.json: ${res.status}`);
  return (await res.json()) as { keys: Array<Record<string, unknown> & { kid: string }> };
};

// ---------------------------------------------------------------------------------------------------------------
// The Kubernetes KMS plugin
// ---------------------------------------------------------------------------------------------------------------

t.test('a socket folder other users may write is refused: they could put their own socket at the path', async (t) => {
  // In such a folder another user renames the plugin's socket away (no sticky bit), or waits for a restart (with
  // one) and binds a socket of its own at the path: kube-apiserver, root, then sends it every data key to encrypt,
  // and svc-kms's next boot finds "another process serves on that socket". docs/kubernetes.md installs the folder
  // 0700; the plugin takes any folder.
  for (const [mode, what] of [
    [0o777, 'a world-writable folder'],
    [0o1777, 'a world-writable sticky folder (as /tmp)'],
    [0o770, 'a group-writable folder'],
  ] as const) {
    const dir = tempDir();
    chmodSync(dir, mode);
    const refused = await bootRefusal(t, dir, what);
    if (refused) t.match(refused.message, /k8s\.socket/, `${what}: the boot names the setting`);
  }
  if (process.getuid?.() === 0) {
    // Its owner may rename the socket away or chmod the folder, whatever its mode.
    const foreign = tempDir();
    chownSync(foreign, 65534, 65534);
    chmodSync(foreign, 0o755);
    const refused = await bootRefusal(t, foreign, 'a folder owned by another user (nobody)');
    if (refused) t.match(refused.message, /k8s\.socket/, 'a folder another user owns: the boot names the setting');
  }
});

t.test("a live server's socket is never taken for a stale one when it is busy (EAGAIN)", async (t) => {
  // clearStale() treats every connect error as "nothing serves": a live server whose backlog is full answers
  // EAGAIN (and one the service's user may not connect to, EACCES), and its socket is unlinked and replaced.
  const dir = tempDir();
  const socket = path.join(dir, 'kms.sock');
  const busy: ChildProcess = spawn(
    process.execPath,
    [
      '-e',
      // Listens with a backlog of 1, says so, then stops accepting for 30 s (its event loop blocked): alive, but busy.
      "require('net').createServer().listen({ path: process.argv[1], backlog: 1 }, () => {" +
        "process.stdout.write('up', () => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 30000)); })",
      socket,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  t.teardown(() => {
    busy.kill('SIGKILL');
  });
  await new Promise((resolve) => busy.stdout!.once('data', resolve));
  const held: Socket[] = [];
  t.teardown(() => {
    for (const s of held) s.destroy();
  });
  let full = false;
  for (let i = 0; i < 8 && !full; i++)
    full =
      (await new Promise<string>((resolve) => {
        const c = connect(socket);
        held.push(c);
        c.once('connect', () => resolve('connect')).once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? ''));
        setTimeout(() => resolve('timeout'), 1500).unref();
      })) === 'EAGAIN';
  t.ok(full, "the other server's backlog is full: a connect answers EAGAIN");
  const { ino } = lstatSync(socket);
  const refused = await bootRefusal(t, dir, "a live (busy) server's socket at the path");
  if (refused) t.match(refused.message, /another process serves on that socket/);
  t.equal(lstatSync(socket).ino, ino, "the other process's socket is left in place");
});

t.test('a call refused before the plugin reads it (too large, not protobuf) still writes a record', async (t) => {
  // docs/kubernetes.md: "A refused call (the policy, the key's state, bad input) has its record too", and REST
  // audits its 413 and malformed JSON. A message over 64 KiB (RESOURCE_EXHAUSTED) or one that is not protobuf
  // (INTERNAL "Error deserializing request") is answered by gRPC and never reaches the pipeline: a client can
  // send any number of them without a trace.
  const dir = tempDir();
  const svc = await bootK8s(t, dir);
  await aliasedKey(svc);
  const socket = path.join(dir, 'kms.sock');
  const kms = k8sKmsClient(socket);
  t.teardown(() => kms.close());
  const refusedK8s = async (method: string) =>
    ((await svc.client('auditor').get('/v1/audit?limit=1000')).body.records as any[]).filter(
      (r) => r.context?.door === 'k8s' && r.context['k8s.method'] === method && r.outcome !== 'Success',
    ).length;
  // gRPC answers such a call before any handler runs: a fix may write its record just after the answer.
  const recorded = (check: () => Promise<boolean>) =>
    until(check, 'the record', 3_000).then(
      () => true,
      () => false,
    );

  const encryptsBefore = await refusedK8s('Encrypt');
  const big = await refusalOf(kms.encrypt(randomBytes(100 * 1024), randomUUID()));
  t.equal(big.code, GrpcStatus.RESOURCE_EXHAUSTED, 'a 100 kB Encrypt is refused');
  t.ok(
    await recorded(async () => (await refusedK8s('Encrypt')) > encryptsBefore),
    'the refused 100 kB Encrypt has a record',
  );

  const Raw = grpc.makeGenericClientConstructor(
    {
      Decrypt: {
        path: '/v2.KeyManagementService/Decrypt',
        requestStream: false,
        responseStream: false,
        requestSerialize: (b: Buffer) => b,
        requestDeserialize: (b: Buffer) => b,
        responseSerialize: (b: Buffer) => b,
        responseDeserialize: (b: Buffer) => b,
      },
    },
    'Raw',
  );
  const raw = new Raw(`unix:${socket}`, grpc.credentials.createInsecure()) as any;
  t.teardown(() => raw.close());
  const decryptsBefore = await refusedK8s('Decrypt');
  const garbage = await new Promise<grpc.ServiceError>((resolve) =>
    raw.Decrypt(Buffer.from([0xff, 0xff, 0xff]), { deadline: Date.now() + 3000 }, (err: grpc.ServiceError) =>
      resolve(err),
    ),
  );
  t.ok(garbage, 'a Decrypt whose message is not protobuf is refused');
  t.ok(
    await recorded(async () => (await refusedK8s('Decrypt')) > decryptsBefore),
    'the refused undecodable Decrypt has a record',
  );
});

t.test(
  'GUARD: with the documented bindings, a squatted alias or another owner’s ciphertext gets nothing',
  async (t) => {
    // docs/kubernetes.md binds kube-apiserver to name:kubernetes-secrets. mallory may create and change her
    // own keys: she points alias/kubernetes at her key before the operator creates it, and hands the socket a
    // ciphertext of her key (the plugin decrypts under the key a ciphertext names).
    const dir = tempDir();
    const svc = await bootK8s(t, dir, {
      SVC_POLICY_KIND: 'role-based',
      SVC_POLICY_SUBJECT_BINDINGS: JSON.stringify({
        alice: ['Create', 'Activate', 'Get', 'Rotate', 'AddAttribute', 'Query'],
        auditor: ['Query'],
        [PRINCIPAL]: { operations: ['Encrypt', 'Decrypt'], keys: ['name:kubernetes-secrets'] },
        mallory: {
          operations: ['Create', 'Activate', 'Get', 'AddAttribute', 'Encrypt', 'Decrypt', 'Disable'],
          keys: ['owner:self'],
        },
      }),
    });
    const mallory = svc.client('mallory');
    const kms = k8sKmsClient(path.join(dir, 'kms.sock'));
    t.teardown(() => kms.close());

    const named = await mallory.post('/v1/keys', {
      spec: { name: 'kubernetes-secrets', algorithm: 'AES', sizeBits: 256 },
      activate: true,
    });
    t.equal(named.status, 403, 'mallory cannot make a key with the name the binding claims');
    const hers = await mallory.key({ algorithm: 'AES', sizeBits: 256 });
    const squat = await mallory.call('PUT', `/v1/aliases/${encodeURIComponent(ALIAS)}`, { keyId: hers });
    t.equal(squat.status, 200, 'mallory takes alias/kubernetes first (her own key)');
    const encrypt = await refusalOf(kms.encrypt(randomBytes(32)));
    t.equal(encrypt.code, GrpcStatus.PERMISSION_DENIED, "kube-apiserver's data key is never encrypted under her key");

    const sealed = await mallory.post(`/v1/keys/${hers}/encrypt`, {
      plaintextBase64: randomBytes(32).toString('base64'),
    });
    const wrapped = Buffer.concat([
      Buffer.from([0x4b]),
      Buffer.from(hers.replaceAll('-', ''), 'hex'),
      Buffer.from(sealed.body.ciphertextBase64, 'base64'),
    ]);
    const cross = await refusalOf(kms.decrypt(wrapped));
    t.equal(cross.code, GrpcStatus.PERMISSION_DENIED, 'a ciphertext naming her key is not opened as kube-apiserver');

    const alice = svc.client('alice');
    const own = await alice.post('/v1/keys', {
      spec: { name: 'kubernetes-secrets', algorithm: 'AES', sizeBits: 256 },
      activate: true,
    });
    t.equal(own.status, 201);
    t.equal(
      (await alice.call('PUT', `/v1/aliases/${encodeURIComponent(ALIAS)}`, { keyId: own.body.id })).status,
      200,
      'the operator moves the alias back',
    );
    t.equal((await kms.status()).key_id, `${own.body.id}:v1`);
  },
);

t.test('GUARD: a symlink at the socket path is neither followed nor removed', async (t) => {
  for (const target of ['file', 'dangling'] as const) {
    const dir = tempDir();
    const elsewhere = path.join(tempDir(), 'target');
    if (target === 'file') writeFileSync(elsewhere, 'precious');
    symlinkSync(elsewhere, path.join(dir, 'kms.sock'));
    const refused = await bootRefusal(t, dir, `a symlink (${target}) at the path`);
    if (refused) t.match(refused.message, /exists and is not a socket/);
    t.ok(lstatSync(path.join(dir, 'kms.sock')).isSymbolicLink(), `${target}: the symlink is left as it was`);
    if (target === 'file') t.equal(readFileSync(elsewhere, 'utf8'), 'precious', 'its target is untouched');
  }
});

t.test('GUARD: a gzip-compressed message that decompresses past 64 KiB is refused, not inflated', async (t) => {
  const dir = tempDir();
  const svc = await bootK8s(t, dir);
  const keyId = await aliasedKey(svc);
  const socket = path.join(dir, 'kms.sock');
  const definition = protoLoader.loadSync(K8S_KMS_PROTO, {
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
  });
  const v2 = grpc.loadPackageDefinition(definition).v2 as Record<string, grpc.ServiceClientConstructor>;
  const gzip = new v2.KeyManagementService!(`unix:${socket}`, grpc.credentials.createInsecure(), {
    'grpc.default_compression_algorithm': 2,
  });
  t.teardown(() => gzip.close());
  const answer = await new Promise<grpc.ServiceError | null>((resolve) =>
    (gzip.Encrypt as any)(
      { plaintext: Buffer.alloc(64 * 1024 * 1024) },
      { deadline: Date.now() + 10_000 },
      (err: grpc.ServiceError | null) => resolve(err),
    ),
  );
  t.equal(answer?.code, GrpcStatus.RESOURCE_EXHAUSTED, '64 MiB of zeros, gzipped to ~64 KiB, is refused');
  const kms = k8sKmsClient(socket);
  t.teardown(() => kms.close());
  t.same(await kms.status(), { version: 'v2', healthz: 'ok', key_id: `${keyId}:v1` }, 'the plugin answers on');
});

// ---------------------------------------------------------------------------------------------------------------
// JWKS and sign-jwt
// ---------------------------------------------------------------------------------------------------------------

t.test(
  "a user who may only create and sign with her own keys cannot put a key in the deployment's public set",
  async (t) => {
    // /.well-known/jwks.json is the deployment's trust anchor (docs/keys.md: a verifier uses
    // createRemoteJWKSet on it). It lists every key tagged jwks=public, whoever owns it and whoever tagged it,
    // and a tag may be set at creation with nothing but Create. docs/key-model.md: "A tag never grants anything".
    const svc = await startTestService({
      SVC_JWKS_CACHE_SECONDS: '1',
      SVC_POLICY_KIND: 'role-based',
      SVC_POLICY_SUBJECT_BINDINGS: JSON.stringify({
        alice: ['Create', 'Activate', 'Get', 'Sign', 'AddAttribute', 'Locate', 'Query', 'Administer'],
        mallory: { operations: ['Create', 'Activate', 'Get', 'Sign', 'AddAttribute'], keys: ['owner:self'] },
      }),
    });
    t.teardown(() => svc.stop());
    const alice = svc.client('alice');
    const mallory = svc.client('mallory');
    await alice.key({ algorithm: 'EC', curve: 'P-256', tags: { jwks: 'public' } });

    const created = await mallory.post('/v1/keys', {
      spec: { name: `m-${randomUUID()}`, algorithm: 'EC', curve: 'P-256', tags: { jwks: 'public' } },
      activate: true,
    });
    const tagged =
      created.status === 201
        ? created.body.id
        : await mallory.key({ algorithm: 'EC', curve: 'P-256' }).then(async (id) => {
            await mallory.call('PUT', `/v1/keys/${id}/tags`, { tags: { jwks: 'public' } });
            return id;
          });
    const forged = await mallory.post(`/v1/keys/${tagged}/sign-jwt`, {
      payload: { sub: 'admin', aud: 'payments-api', exp: Math.floor(Date.now() / 1000) + 3600 },
    });
    t.equal(forged.status, 200, 'mallory signs with her own key, as she may');
    t.notOk((await mallory.get(`/v1/keys/${tagged}`)).body.tags?.jwks, 'her key does not carry jwks=public');
    // The set is read for the first time now (nothing cached it before), so it shows the keys as they are.
    const set = await publicSet(svc.url);
    t.notOk(
      set.keys.some((k) => k.kid.startsWith(`${tagged}:`)),
      "mallory's key is not in the deployment's public key set",
    );
    const verified = await jwtVerify(forged.body.jwt, createLocalJWKSet(set), { audience: 'payments-api' }).then(
      () => true,
      () => false,
    );
    t.notOk(verified, "a verifier of the deployment's JWTs does not accept mallory's token for sub admin");
  },
);

t.test('a compromised key leaves the public set: its stolen private key mints no trusted JWT', async (t) => {
  // docs/keys.md's state table: a Compromised key no longer verifies in the service (409). The JWKS door drops
  // Destroyed, disabled and scheduled keys, but keeps publishing a Compromised one, so every verifier keeps
  // accepting tokens made with the leaked private key.
  const svc = await startTestService({ SVC_JWKS_CACHE_SECONDS: '1' });
  t.teardown(() => svc.stop());
  const alice = svc.client('alice');
  const id = await alice.key({ algorithm: 'EC', curve: 'P-256', tags: { jwks: 'public' } });
  const token = (await alice.post(`/v1/keys/${id}/sign-jwt`, { payload: { sub: 'user-1' } })).body.jwt;
  t.ok(
    (await publicSet(svc.url)).keys.some((k) => k.kid === `${id}:1`),
    'the key is published while it is Active',
  );
  const compromised = await alice.post(`/v1/keys/${id}/compromise`, { reason: 'private key leaked' });
  t.equal(compromised.status, 200, JSON.stringify(compromised.body));
  const left = async () => !(await publicSet(svc.url)).keys.some((k) => k.kid.startsWith(`${id}:`));
  t.ok(
    await until(left, 'the key to leave the set', 2_500).then(
      () => true,
      () => false,
    ),
    'within two cache periods after the compromise, the key is not in /.well-known/jwks.json',
  );
  const set = await publicSet(svc.url);
  const accepted = await jwtVerify(token, createLocalJWKSet(set)).then(
    () => true,
    () => false,
  );
  t.notOk(accepted, 'a token of the compromised key no longer verifies against the public set');
});

t.test('sign-jwt with a secp256k1 key and no alg is refused as input, not a 500', async (t) => {
  // signatureAlgorithmFor() reads EC_ALG[curve]!.slice(2): secp256k1 has no entry, and the TypeError is an
  // InternalError with a stack in the log, on a path any Sign caller chooses.
  const svc = await startTestService();
  t.teardown(() => svc.stop());
  const alice = svc.client('alice');
  const id = await alice.key({ algorithm: 'EC', curve: 'secp256k1' });
  const signed = await alice.post(`/v1/keys/${id}/sign-jwt`, { payload: { sub: 'user-1' } });
  t.not(signed.status, 500, `answered ${signed.status} ${JSON.stringify(signed.body)}`);
  t.ok(
    (signed.status === 400 && signed.body.error === 'InvalidField') ||
      (signed.status === 200 && signed.body.alg === 'ES256K'),
    'InvalidField (or ES256K, which JOSE pairs with secp256k1)',
  );
  t.notOk(
    svc.logs.some((l) => l.includes('operation failed unexpectedly') && l.includes('SignJwt')),
    'no unexpected failure in the log',
  );
});

t.test('GUARD: no JWKS holds private members; alg none/HS256 are refused; the service sets kid', async (t) => {
  const svc = await startTestService({ SVC_JWKS_CACHE_SECONDS: '1' });
  t.teardown(() => svc.stop());
  const alice = svc.client('alice');
  const ids: string[] = [];
  for (const spec of [
    { algorithm: 'RSA', sizeBits: 2048 },
    { algorithm: 'EC', curve: 'P-384' },
    { algorithm: 'EdDSA', curve: 'Ed25519' },
  ])
    ids.push(await alice.key({ ...spec, tags: { jwks: 'public' } }));
  const sets = [
    await publicSet(svc.url),
    ...(await Promise.all(ids.map(async (id) => (await alice.get(`/v1/keys/${id}/jwks`)).body))),
  ];
  const PRIVATE = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k', 'oth'];
  const leaks = sets.flatMap((set) =>
    set.keys.flatMap((jwk: Record<string, unknown>) => PRIVATE.filter((m) => m in jwk).map((m) => `${jwk.kid} ${m}`)),
  );
  t.same(leaks, [], "no JWK, in the public set or a key's own, has a private member");
  t.equal(sets[0]!.keys.length, 3, 'the public set lists the three keys');

  const rsa = ids[0]!;
  for (const alg of ['none', 'HS256', 'None', 'ES256K'])
    t.match(
      (await alice.post(`/v1/keys/${rsa}/sign-jwt`, { header: { alg }, payload: {} })).body,
      { error: 'InvalidField' },
      `alg ${alg} on an RSA key is refused`,
    );
  const signed = await alice.post(`/v1/keys/${rsa}/sign-jwt`, {
    header: { kid: `${ids[1]}:1`, alg: 'RS256' },
    payload: { sub: 'user-1' },
  });
  t.equal(signed.status, 200);
  t.equal(decodeProtectedHeader(signed.body.jwt).kid, `${rsa}:1`, "a kid in the header is replaced by the key's own");
});
