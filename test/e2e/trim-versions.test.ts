import t from 'tap';
import { ApiClient, b64 } from '../helpers/client.ts';
import { startTestService, tempDir } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

const ALL = [
  'Create',
  'Get',
  'Activate',
  'Revoke',
  'Destroy',
  'Sign',
  'Verify',
  'Encrypt',
  'Decrypt',
  'Wrap',
  'Unwrap',
  'Rotate',
  'Compromise',
  'Query',
];
const ENV = {
  SVC_JOURNAL_KIND: 'rdb-embedded',
  SVC_AUTH_KIND: 'hmac',
  SVC_AUTH_HMAC_SECRET: TEST_SECRET,
  SVC_POLICY_KIND: 'role-based',
  SVC_POLICY_ROLE_BINDINGS: JSON.stringify({ 'kms-admins': ALL, readers: ['Get', 'Encrypt', 'Decrypt'] }),
  SVC_RISK_ENABLED: 'false',
};

const dir = tempDir();
let svc = await startTestService(ENV, { dir });
t.teardown(() => svc.stop());
const humanToken = await mintToken({ sub: 'ops', svc_groups: ['kms-admins'] }, { ttlSeconds: 3600 });
const serviceToken = await mintToken(
  { sub: 'svc-rotator', svc_kind: 'service', svc_groups: ['kms-admins'] },
  { ttlSeconds: 3600 },
);
const readerToken = await mintToken({ sub: 'reader', svc_groups: ['readers'] }, { ttlSeconds: 3600 });
let human = new ApiClient(svc.url, { Authorization: `Bearer ${humanToken}` });
const service = () => new ApiClient(svc.url, { Authorization: `Bearer ${serviceToken}` });

/** An AES key at version 3 with a ciphertext and a wrapped key made under each version. */
async function threeVersions(client: ApiClient) {
  const id = await client.key({ algorithm: 'AES' });
  const made: Array<{ ciphertextBase64: string; wrappedDekBase64: string }> = [];
  for (let v = 1; v <= 3; v++) {
    if (v > 1) await client.post(`/v1/keys/${id}/rotate`, {});
    const enc = await client.post(`/v1/keys/${id}/encrypt`, { plaintextBase64: b64(`made under version ${v}`) });
    const wrap = await client.post(`/v1/keys/${id}/wrap`, { dekBase64: b64('0123456789abcdef') });
    made.push({ ciphertextBase64: enc.body.ciphertextBase64, wrappedDekBase64: wrap.body.wrappedDekBase64 });
  }
  return { id, made };
}

t.test(
  'trim erases the versions below minVersion: their ciphertexts are refused naming the version, the rest work',
  async (t) => {
    const { id, made } = await threeVersions(human);
    const trimmed = await human.post(`/v1/keys/${id}/trim`, { minVersion: 3 });
    t.equal(trimmed.status, 200);
    t.same(trimmed.body, { id, state: 'Active', currentVersion: 3, minVersion: 3, erasure: 'complete' });
    t.equal((await human.get(`/v1/keys/${id}`)).body.minVersion, 3, 'GET shows minVersion');
    for (const v of [1, 2]) {
      const dec = await human.post(`/v1/keys/${id}/decrypt`, { ciphertextBase64: made[v - 1]!.ciphertextBase64 });
      t.equal(dec.status, 409, `decrypt of version ${v}`);
      t.match(dec.body, { error: 'IllegalOperation', message: new RegExp(`version ${v} of key ${id} was trimmed`) });
      t.match(
        (await human.post(`/v1/keys/${id}/unwrap`, { wrappedDekBase64: made[v - 1]!.wrappedDekBase64 })).body,
        { error: 'IllegalOperation', message: /was trimmed/ },
        `unwrap of version ${v}`,
      );
    }
    t.equal(
      (await human.post(`/v1/keys/${id}/decrypt`, { ciphertextBase64: made[2]!.ciphertextBase64 })).body
        .plaintextBase64,
      b64('made under version 3'),
      'the kept version decrypts',
    );
    t.equal(
      (await human.post(`/v1/keys/${id}/unwrap`, { wrappedDekBase64: made[2]!.wrappedDekBase64 })).body.dekBase64,
      b64('0123456789abcdef'),
    );
    const rotated = await human.post(`/v1/keys/${id}/rotate`, {});
    t.equal(rotated.body.currentVersion, 4, 'the key rotates on');
    const v4 = await human.post(`/v1/keys/${id}/encrypt`, { plaintextBase64: b64('v4') });
    t.equal(
      (await human.post(`/v1/keys/${id}/decrypt`, { ciphertextBase64: v4.body.ciphertextBase64 })).body.plaintextBase64,
      b64('v4'),
    );
    const rows = (await human.auditOf(id)).filter((r) => r.operation === 'Destroy');
    t.match(rows, [
      {
        principal: { subject: 'ops' },
        outcome: 'Success',
        context: { minVersion: '3', previousMinVersion: '1', erasedVersions: '2', requestedMinVersion: '3' },
      },
    ]);
  },
);

t.test('signatures of a trimmed version no longer verify; its public key is refused', async (t) => {
  const id = await human.key({ algorithm: 'EdDSA' });
  const old = await human.post(`/v1/keys/${id}/sign`, { messageBase64: b64('m') });
  await human.post(`/v1/keys/${id}/rotate`, {});
  const fresh = await human.post(`/v1/keys/${id}/sign`, { messageBase64: b64('m') });
  t.equal((await service().post(`/v1/keys/${id}/trim`, { minVersion: 2 })).status, 200, 'a Service may trim');
  t.match(
    (
      await human.post(`/v1/keys/${id}/verify`, {
        messageBase64: b64('m'),
        signatureBase64: old.body.signatureBase64,
        keyVersion: 1,
      })
    ).body,
    { error: 'IllegalOperation', message: /version 1 .* was trimmed/ },
  );
  t.match(
    (await human.post(`/v1/keys/${id}/verify`, { messageBase64: b64('m'), signatureBase64: old.body.signatureBase64 }))
      .body,
    { valid: false },
    'without a version, only kept versions are tried',
  );
  t.match(
    (
      await human.post(`/v1/keys/${id}/verify`, {
        messageBase64: b64('m'),
        signatureBase64: fresh.body.signatureBase64,
      })
    ).body,
    { valid: true, keyVersion: 2 },
  );
  t.match((await human.get(`/v1/keys/${id}/public-key?version=1`)).body, {
    error: 'IllegalOperation',
    message: /was trimmed/,
  });
  t.equal((await human.get(`/v1/keys/${id}/public-key?version=2`)).status, 200);
});

t.test('refusals: every bad minVersion gets a clear 4xx and changes nothing', async (t) => {
  const { id } = await threeVersions(human);
  const cases: Array<[unknown, number, RegExp]> = [
    [1, 400, /minVersion must be >= 2/],
    [4, 400, /past the current version 3/],
    ['2', 400, /minVersion must be integer/],
    [2.5, 400, /minVersion must be integer/],
    [undefined, 400, /missing required field "minVersion"/],
  ];
  for (const [minVersion, status, message] of cases) {
    const res = await human.post(`/v1/keys/${id}/trim`, minVersion === undefined ? {} : { minVersion });
    t.equal(res.status, status, `minVersion ${JSON.stringify(minVersion)}`);
    t.match(res.body.message, message);
  }
  t.equal((await human.get(`/v1/keys/${id}`)).body.minVersion, undefined, 'nothing was trimmed');
  t.equal((await human.post(`/v1/keys/${id}/trim`, { minVersion: 2 })).status, 200);
  const again = await human.post(`/v1/keys/${id}/trim`, { minVersion: 2 });
  t.equal(again.status, 409, 'the same minVersion again');
  t.match(again.body.message, /below 2 .* trimmed already/);
  t.equal(
    (
      await new ApiClient(svc.url, { Authorization: `Bearer ${readerToken}` }).post(`/v1/keys/${id}/trim`, {
        minVersion: 3,
      })
    ).status,
    403,
    'no Destroy: refused',
  );
  const scheduled = await threeVersions(human);
  await human.post(`/v1/keys/${scheduled.id}/revoke`, {});
  await human.call('DELETE', `/v1/keys/${scheduled.id}?waitingDays=3`);
  t.match(
    (await human.post(`/v1/keys/${scheduled.id}/trim`, { minVersion: 2 })).body,
    { error: 'IllegalOperation', message: /scheduled for destruction/ },
    'a key scheduled for destruction is not trimmed meanwhile',
  );
  const destroyed = await threeVersions(human);
  await human.post(`/v1/keys/${destroyed.id}/revoke`, {});
  await human.call('DELETE', `/v1/keys/${destroyed.id}`);
  t.match((await human.post(`/v1/keys/${destroyed.id}/trim`, { minVersion: 2 })).body, {
    error: 'IllegalOperation',
    message: /Destroyed/,
  });
  t.equal((await human.post('/v1/keys/not-a-key/trim', { minVersion: 2 })).status, 404);
});

t.test(
  'after a restart the kept versions still open under the new key-wrapping key; the trimmed stay gone',
  async (t) => {
    const { id, made } = await threeVersions(human);
    await human.post(`/v1/keys/${id}/trim`, { minVersion: 2 });
    await svc.stop();
    svc = await startTestService(ENV, { dir });
    human = new ApiClient(svc.url, { Authorization: `Bearer ${humanToken}` });
    t.equal(
      (await human.post(`/v1/keys/${id}/decrypt`, { ciphertextBase64: made[1]!.ciphertextBase64 })).body
        .plaintextBase64,
      b64('made under version 2'),
    );
    t.equal(
      (await human.post(`/v1/keys/${id}/decrypt`, { ciphertextBase64: made[2]!.ciphertextBase64 })).body
        .plaintextBase64,
      b64('made under version 3'),
    );
    t.equal((await human.post(`/v1/keys/${id}/decrypt`, { ciphertextBase64: made[0]!.ciphertextBase64 })).status, 409);
  },
);
