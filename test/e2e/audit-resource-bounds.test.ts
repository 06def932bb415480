import t from 'tap';
import { startTestService } from '../helpers/service.ts';

t.test("a refused create's audit resource holds the key name cut at 256 characters, like names", async (t) => {
  const svc = await startTestService();
  t.teardown(() => svc.stop());
  const api = svc.client('alice');
  const name = `${'n'.repeat(256)}${'x'.repeat(144)}`;
  const res = await api.post('/v1/keys', { spec: { name, algorithm: 'AES' } });
  t.equal(res.status, 400);
  t.equal(res.body.error, 'InvalidField');
  const record = (await svc.client('auditor').get('/v1/audit?actor=alice&op=Create')).body.records[0];
  t.match(record, { operation: 'Create', outcome: 'InvalidField' });
  t.equal(record.resource, `name:${'n'.repeat(256)}`, 'name: and the first 256 characters of the name');
});
