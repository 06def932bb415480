import t from 'tap';
import { b64 } from '../helpers/client.ts';
import { ManualClock, startTestService } from '../helpers/service.ts';

const clock = new ManualClock();
const svc = await startTestService({}, { clock });
t.teardown(() => svc.stop());
const api = svc.client();

/** Waits for a condition the service reaches in the background, polling; fails after the deadline. */
async function eventually(check: () => Promise<boolean>, ms = 5000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setImmediate(r));
  }
  return false;
}

t.test('OpCountBased:3 rotates the key after three signs on the current version', async (t) => {
  const id = await api.key({ algorithm: 'EdDSA' });
  const set = await api.post(`/v1/keys/${id}/rotate`, { policy: 'OpCountBased:3' });
  t.match(set.body, { currentVersion: 2, rotationPolicy: 'OpCountBased:3' });
  for (let i = 0; i < 2; i++) await api.post(`/v1/keys/${id}/sign`, { messageBase64: b64('m') });
  t.equal((await api.get(`/v1/keys/${id}`)).body.currentVersion, 2, 'two uses are not enough');
  await api.post(`/v1/keys/${id}/sign`, { messageBase64: b64('m') });
  t.ok(
    await eventually(async () => (await api.get(`/v1/keys/${id}`)).body.currentVersion === 3),
    'rotated to version 3',
  );
  const rows = await api.auditOf(id);
  t.match(
    rows.find((r) => r.principal.subject === 'svc-system'),
    {
      operation: 'Rotate',
      principal: { subject: 'svc-system', kind: 'Service' },
      outcome: 'Success',
      context: { previousVersion: '2', currentVersion: '3', door: 'internal' },
    },
  );
  t.ok(
    rows.filter((r) => r.principal.subject !== 'svc-system').every((r) => r.context.door === 'http'),
    'REST calls are audited with door: http',
  );
  t.equal((await api.post(`/v1/keys/${id}/sign`, { messageBase64: b64('m') })).body.keyVersion, 3);
});

t.test('TimeBased:7days rotates on the first use after the period, and the old version still decrypts', async (t) => {
  const id = await api.key({ algorithm: 'AES' });
  await api.post(`/v1/keys/${id}/rotate`, { policy: 'TimeBased:7days' });
  const early = await api.post(`/v1/keys/${id}/encrypt`, { plaintextBase64: b64('week one') });
  t.equal(early.body.keyVersion, 2);
  clock.advance(7 * 86_400_000 + 1000);
  const late = await api.post(`/v1/keys/${id}/encrypt`, { plaintextBase64: b64('week two') });
  t.equal(late.body.keyVersion, 3, 'rotated before use');
  t.same((await api.post(`/v1/keys/${id}/decrypt`, { ciphertextBase64: early.body.ciphertextBase64 })).body, {
    plaintextBase64: b64('week one'),
    keyVersion: 2,
  });
});

t.test('a malformed policy is InvalidField and changes nothing', async (t) => {
  const id = await api.key({ algorithm: 'AES' });
  for (const policy of ['Sometimes', 'TimeBased:soon', 'OpCountBased:0']) {
    const res = await api.post(`/v1/keys/${id}/rotate`, { policy });
    t.equal(res.body.error, 'InvalidField', policy);
  }
  t.equal((await api.get(`/v1/keys/${id}`)).body.currentVersion, 1);
});
