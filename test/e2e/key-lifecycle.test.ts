import t from 'tap';
import { startTestService } from '../helpers/service.ts';
import { b64 } from '../helpers/client.ts';

const svc = await startTestService();
t.teardown(() => svc.stop());
const api = svc.client();

t.test('a new key is PreActive at version 1 and echoes its normalised spec', async (t) => {
  const res = await api.post('/v1/keys', { spec: { name: 'payments', algorithm: 'EC' } });
  t.equal(res.status, 201);
  t.match(res.body, {
    state: 'PreActive',
    currentVersion: 1,
    spec: { name: 'payments', algorithm: 'EC', sizeBits: 256, curve: 'P-256', objectType: 'PrivateKey' },
  });
  t.match(res.body.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  const got = await api.get(`/v1/keys/${res.body.id}`);
  t.same(got.body, res.body);
});

t.test('a PreActive key refuses every cryptographic operation with 409', async (t) => {
  const id = await api.key({ algorithm: 'AES' }, false);
  for (const [op, body] of [
    ['encrypt', { plaintextBase64: b64('x') }],
    ['decrypt', { ciphertextBase64: b64('x') }],
    ['wrap', { dekBase64: b64('0123456789abcdef') }],
  ] as const) {
    const res = await api.post(`/v1/keys/${id}/${op}`, body);
    t.equal(res.status, 409, op);
    t.equal(res.body.error, 'IllegalOperation');
    t.match(res.body.message, /PreActive/);
  }
});

t.test('activate works only from PreActive', async (t) => {
  const id = await api.key({ algorithm: 'HMAC' }, false);
  const first = await api.post(`/v1/keys/${id}/activate`);
  t.match(first.body, { id, state: 'Active' });
  const again = await api.post(`/v1/keys/${id}/activate`);
  t.equal(again.status, 409);
  t.match(again.body.message, /Active/);
});

t.test('revoke moves Active to Deactivated: verify still works, sign is refused', async (t) => {
  const id = await api.key({ algorithm: 'EdDSA' });
  const sig = await api.post(`/v1/keys/${id}/sign`, { messageBase64: b64('hello') });
  const revoked = await api.post(`/v1/keys/${id}/revoke`, { reason: 'rotation of duty' });
  t.match(revoked.body, { id, state: 'Deactivated', reason: 'rotation of duty' });
  t.equal((await api.post(`/v1/keys/${id}/sign`, { messageBase64: b64('hello') })).status, 409);
  const verify = await api.post(`/v1/keys/${id}/verify`, {
    messageBase64: b64('hello'),
    signatureBase64: sig.body.signatureBase64,
  });
  t.match(verify.body, { valid: true, keyVersion: 1 });
  t.equal((await api.post(`/v1/keys/${id}/revoke`, {})).status, 409, 'revoke only from Active');
  t.equal((await api.post(`/v1/keys/${id}/rotate`, {})).status, 409, 'rotate only from Active');
});

t.test('compromise needs a non-blank reason, is one-way, and refuses every crypto call', async (t) => {
  const id = await api.key({ algorithm: 'AES' });
  const ct = await api.post(`/v1/keys/${id}/encrypt`, { plaintextBase64: b64('secret') });
  const blank = await api.post(`/v1/keys/${id}/compromise`, { reason: '   ' });
  t.equal(blank.status, 400);
  t.equal(blank.body.error, 'InvalidField');
  const missing = await api.post(`/v1/keys/${id}/compromise`, {});
  t.equal(missing.body.error, 'BadRequest');
  const done = await api.post(`/v1/keys/${id}/compromise`, { reason: 'laptop stolen' });
  t.match(done.body, { id, state: 'Compromised', reason: 'laptop stolen' });
  const dec = await api.post(`/v1/keys/${id}/decrypt`, { ciphertextBase64: ct.body.ciphertextBase64 });
  t.equal(dec.status, 409);
  t.match(dec.body.message, /Compromised/);
  t.equal((await api.post(`/v1/keys/${id}/activate`)).status, 409, 'no way back');
});

t.test('destroy: refused while Active, then erases the key for good and GET answers Destroyed', async (t) => {
  const id = await api.key({ algorithm: 'AES' });
  const active = await api.call('DELETE', `/v1/keys/${id}`);
  t.equal(active.status, 409);
  t.match(active.body.message, /Active/);
  await api.post(`/v1/keys/${id}/revoke`, {});
  const destroyed = await api.call('DELETE', `/v1/keys/${id}`);
  t.match(destroyed.body, { id, state: 'Destroyed' });
  t.match((await api.get(`/v1/keys/${id}`)).body, { state: 'Destroyed' });
  t.equal(
    (await api.post(`/v1/keys/${id}/compromise`, { reason: 'late' })).status,
    409,
    'Destroyed cannot be compromised',
  );
  t.equal((await api.call('DELETE', `/v1/keys/${id}`)).status, 409);
});

t.test('a PreActive or Compromised key can be destroyed', async (t) => {
  const pre = await api.key({ algorithm: 'AES' }, false);
  t.equal((await api.call('DELETE', `/v1/keys/${pre}`)).status, 200);
  const comp = await api.key({ algorithm: 'AES' });
  await api.post(`/v1/keys/${comp}/compromise`, { reason: 'leak' });
  t.equal((await api.call('DELETE', `/v1/keys/${comp}`)).status, 200);
});

t.test('unknown and non-UUID key ids are 404 KeyNotFound', async (t) => {
  for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
    const res = await api.get(`/v1/keys/${id}`);
    t.equal(res.status, 404);
    t.equal(res.body.error, 'KeyNotFound');
  }
});

t.test('bad key specs are InvalidField, malformed ones BadRequest', async (t) => {
  const cases: Array<[unknown, string]> = [
    [{ name: 'x', algorithm: 'DES' }, 'InvalidField'],
    [{ name: 'x', algorithm: 'AES', sizeBits: 100 }, 'InvalidField'],
    [{ name: 'x', algorithm: 'EC', curve: 'P-384', sizeBits: 256 }, 'InvalidField'],
    [{ name: 'x', algorithm: 'RSA', objectType: 'SymmetricKey' }, 'InvalidField'],
    [{ name: '', algorithm: 'AES' }, 'InvalidField'],
    [{ name: 'x'.repeat(257), algorithm: 'AES' }, 'InvalidField'],
    [{ name: 'x' }, 'BadRequest'],
    [{ name: 'x', algorithm: 'AES', sizeBits: '256' }, 'BadRequest'],
    [{ name: 'x', algorithm: 'AES', color: 'red' }, 'BadRequest'],
  ];
  for (const [spec, code] of cases) {
    const res = await api.post('/v1/keys', { spec });
    t.equal(res.status, 400, JSON.stringify(spec));
    t.equal(res.body.error, code, JSON.stringify(spec));
  }
});
