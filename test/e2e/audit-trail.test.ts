import t from 'tap';
import { auditSinkPort, type AuditSink } from '../../kernel/ports/audit-sink.ts';
import { b64 } from '../helpers/client.ts';
import { startTestService } from '../helpers/service.ts';

const svc = await startTestService();
t.teardown(() => svc.stop());
const api = svc.client('auditor');

t.test('every call on a key writes exactly one record, failed and refused ones included', async (t) => {
  const id = await api.key({ algorithm: 'EC' }, false);
  await api.post(`/v1/keys/${id}/sign`, { messageBase64: b64('m') }); // refused: PreActive
  await api.post(`/v1/keys/${id}/activate`);
  const sig = await api.post(`/v1/keys/${id}/sign`, { messageBase64: b64('m') });
  await api.post(`/v1/keys/${id}/sign`, { messageBase64: b64('m'), algorithm: 'Ed25519' }); // does not fit
  await api.post(`/v1/keys/${id}/verify`, { messageBase64: b64('other'), signatureBase64: sig.body.signatureBase64 });
  await api.post(`/v1/keys/${id}/compromise`, { reason: 'badge lost' });
  const rows = await api.auditOf(id);
  t.same(
    rows.map((r) => `${r.operation}:${r.outcome}`),
    [
      'Create:Success',
      'Sign:IllegalOperation',
      'Activate:Success',
      'Sign:Success',
      'Sign:InvalidField',
      'Verify:InvalidSignature',
      'Compromise:Success',
    ],
  );
  for (const r of rows) {
    t.match(r, {
      principal: { subject: 'auditor', kind: 'Human' },
      resource: id,
      context: { 'source.ip': '127.0.0.1' },
    });
    t.match(r.occurredAt, /Z$/);
  }
  t.match(rows[6].context, { severity: 'Critical', reason: 'badge lost' });
  t.match(rows[3].context, { keyVersion: '1', alg: 'EcdsaSha256' });
});

t.test('the request id is the correlation id of the audit record', async (t) => {
  const id = await api.key({ algorithm: 'AES' });
  const res = await api.call(
    'POST',
    `/v1/keys/${id}/encrypt`,
    { plaintextBase64: b64('x') },
    { 'X-Request-Id': 'trace-abc-123' },
  );
  t.equal(res.headers.get('x-request-id'), 'trace-abc-123');
  const rows = await api.auditOf(id);
  t.equal(rows.at(-1).correlationId, 'trace-abc-123');
  const generated = await api.post(`/v1/keys/${id}/encrypt`, { plaintextBase64: b64('x') });
  t.match(generated.headers.get('x-request-id'), /^[0-9a-f-]{36}$/);
});

t.test('encrypt rows hold context keys and plaintext length, wrap rows dekLen; never the secret bytes', async (t) => {
  const id = await api.key({ algorithm: 'AES' });
  const plaintext = b64('top secret payroll');
  const dek = Buffer.from('feedfacecafebeef0011223344556677', 'hex').toString('base64');
  const enc = await api.post(`/v1/keys/${id}/encrypt`, {
    plaintextBase64: plaintext,
    context: { tenant: 'hidden-tenant-value' },
  });
  await api.post(`/v1/keys/${id}/decrypt`, {
    ciphertextBase64: enc.body.ciphertextBase64,
    context: { tenant: 'hidden-tenant-value' },
  });
  const wrapped = await api.post(`/v1/keys/${id}/wrap`, { dekBase64: dek });
  await api.post(`/v1/keys/${id}/unwrap`, { wrappedDekBase64: wrapped.body.wrappedDekBase64 });
  const rows = await api.auditOf(id);
  const encRow = rows.find((r) => r.operation === 'Encrypt');
  t.match(encRow.context, { contextKeys: 'tenant', plaintextLength: '18', keyVersion: '1', alg: 'AesGcm256' });
  t.match(rows.find((r) => r.operation === 'Wrap').context, { dekLen: '16' });
  const all = JSON.stringify(rows);
  for (const secret of [
    plaintext,
    'top secret',
    dek,
    'hidden-tenant-value',
    enc.body.ciphertextBase64,
    wrapped.body.wrappedDekBase64,
  ]) {
    t.notOk(all.includes(secret), `audit never holds ${secret.slice(0, 12)}...`);
  }
});

t.test('a failed create is recorded against name:<name>', async (t) => {
  await api.post('/v1/keys', { spec: { name: 'bad-one', algorithm: 'AES', sizeBits: 7 } });
  const res = await api.get('/v1/audit?key=name:bad-one');
  t.equal(res.body.records.length, 1);
  t.match(res.body.records[0], { operation: 'Create', outcome: 'InvalidField' });
});

t.test('audit query: filters AND together, newest first, limit and offset clamp, hasMore', async (t) => {
  const other = svc.client('someone-else');
  const id = await other.key({ algorithm: 'HMAC' });
  for (let i = 0; i < 5; i++) await other.post(`/v1/keys/${id}/sign`, { messageBase64: b64(`m${i}`) });
  const signs = await api.get(`/v1/audit?actor=someone-else&op=Sign&key=${id}`);
  t.equal(signs.body.records.length, 5);
  t.equal(signs.body.hasMore, false);
  const times = signs.body.records.map((r: any) => r.occurredAt);
  t.same(times, [...times].sort().reverse(), 'newest first');
  const page = await api.get(`/v1/audit?actor=someone-else&limit=2&offset=1`);
  t.match(page.body, { limit: 2, offset: 1, hasMore: true });
  t.equal(page.body.records.length, 2);
  t.match((await api.get('/v1/audit?limit=0')).body, { limit: 1 });
  t.match((await api.get('/v1/audit?limit=5000')).body, { limit: 1000 });
  t.match((await api.get('/v1/audit?offset=-4')).body, { offset: 0 });
  const future = await api.get(`/v1/audit?actor=someone-else&since=${encodeURIComponent('2999-01-01T00:00:00Z')}`);
  t.equal(future.body.records.length, 0);
  const until = await api.get(`/v1/audit?actor=someone-else&until=${encodeURIComponent(times.at(-1))}`);
  t.notOk(
    until.body.records.some((r: any) => r.occurredAt >= times.at(-1)),
    'until is exclusive',
  );
  const badOp = await api.get('/v1/audit?op=Dance');
  t.same(badOp.body.error, 'InvalidField');
  t.equal(badOp.status, 400);
  t.equal((await api.get('/v1/audit?since=yesterday')).body.error, 'InvalidField');
});

t.test('the primary sink fails closed: no audit record, no result', async (t) => {
  const id = await api.key({ algorithm: 'EdDSA' });
  const sink = svc.kernel.container.resolve<AuditSink>(auditSinkPort.id);
  const original = sink.write.bind(sink);
  sink.write = async () => {
    throw new Error('disk full');
  };
  const res = await api.post(`/v1/keys/${id}/sign`, { messageBase64: b64('m') });
  sink.write = original;
  t.equal(res.status, 500);
  t.same(res.body, {
    error: 'InternalError',
    message: 'the audit record could not be written; the operation result is withheld',
  });
  t.notOk('signatureBase64' in res.body);
});
