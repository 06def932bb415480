import { randomUUID } from 'node:crypto';
import t from 'tap';
import { b64 } from '../helpers/client.ts';
import { startTestService } from '../helpers/service.ts';

t.test('the audit trail names each record by a UUID version 7 whose time is its occurredAt', async (t) => {
  const svc = await startTestService();
  t.teardown(() => svc.stop());
  const owner = svc.client('owner');
  const key = (await owner.post('/v1/keys', { spec: { name: `k-${randomUUID()}`, algorithm: 'AES' } })).body.id;
  await owner.post(`/v1/keys/${key}/activate`);
  for (let i = 0; i < 3; i++) await owner.post(`/v1/keys/${key}/encrypt`, { plaintextBase64: b64('x') });
  t.equal((await owner.post(`/v1/keys/${randomUUID()}/encrypt`, { plaintextBase64: b64('x') })).status, 404);

  const records: Array<{ id: string; occurredAt: string; outcome: string }> = (
    await svc.client('auditor').get('/v1/audit?limit=50')
  ).body.records;
  t.ok(records.length >= 6, 'create, activate, three encrypts and the failed one');
  t.ok(
    records.some((r) => r.outcome !== 'Success'),
    'a failed call is named the same way',
  );
  for (const r of records) {
    t.match(r.id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, 'version 7');
    t.equal(Number.parseInt(r.id.replace(/-/g, '').slice(0, 12), 16), Date.parse(r.occurredAt), 'time = occurredAt');
  }
});
