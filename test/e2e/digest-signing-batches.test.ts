import { createHash } from 'node:crypto';
import t from 'tap';
import { b64 } from '../helpers/client.ts';
import { startTestService } from '../helpers/service.ts';

/** Sign and verify batches take digest items beside message items, each checked as the single call checks it. */

const svc = await startTestService();
t.teardown(() => svc.stop());
const api = svc.client();

const sha256 = (text: string) => createHash('sha256').update(text).digest().toString('base64');

t.test('a batch of message and digest items; a bad item fails alone', async (t) => {
  const id = await api.key({ algorithm: 'EC', curve: 'P-256' });
  const signed = await api.post(`/v1/keys/${id}/sign`, {
    items: [
      { digestBase64: sha256('a') },
      { messageBase64: b64('b') },
      { digestBase64: b64('too short') },
      { messageBase64: b64('d'), digestBase64: sha256('d') },
      {},
      { digestBase64: sha256('f'), algorithm: 'Ed25519' },
    ],
  });
  t.equal(signed.status, 200);
  const [a, b, short, both, neither, ed] = signed.body.results;
  t.match(a, { algorithm: 'EcdsaSha256', keyVersion: 1, signatureBase64: String });
  t.match(b, { algorithm: 'EcdsaSha256', keyVersion: 1, signatureBase64: String });
  t.match(short, { error: 'InvalidField', message: /32-byte SHA-256 hash .* not 9 bytes/ });
  t.same(both, {
    error: 'InvalidField',
    message: 'items.3: exactly one of messageBase64 and digestBase64 is required',
  });
  t.same(neither, {
    error: 'InvalidField',
    message: 'items.4: exactly one of messageBase64 and digestBase64 is required',
  });
  t.match(ed, { error: 'InvalidField', message: /Ed25519 does not fit/ });

  const verified = await api.post(`/v1/keys/${id}/verify`, {
    items: [
      { messageBase64: b64('a'), signatureBase64: a.signatureBase64 },
      { digestBase64: sha256('b'), signatureBase64: b.signatureBase64 },
      { digestBase64: sha256('a'), signatureBase64: b.signatureBase64 },
      { digestBase64: 'not base64', signatureBase64: a.signatureBase64 },
    ],
  });
  t.same(verified.body.results, [
    { valid: true, algorithm: 'EcdsaSha256', keyVersion: 1 },
    { valid: true, algorithm: 'EcdsaSha256', keyVersion: 1 },
    { valid: false, algorithm: 'EcdsaSha256' },
    { error: 'InvalidField', message: 'items.3.digestBase64 is not valid standard base64' },
  ]);

  const rows = (await api.auditOf(id)).filter((r) => r.context['batch.items']);
  t.match(rows, [
    { operation: 'Sign', context: { input: 'message,digest', 'batch.items': '6', 'batch.failed': '4' } },
    { operation: 'Verify', context: { input: 'message,digest', 'batch.items': '4', 'batch.invalid': '1' } },
  ]);
});

t.test('a batch of messages only is audited as before, with no input', async (t) => {
  const id = await api.key({ algorithm: 'RSA', sizeBits: 2048 });
  const signed = await api.post(`/v1/keys/${id}/sign`, { items: [{ messageBase64: b64('x') }] });
  t.equal(signed.status, 200);
  const digests = await api.post(`/v1/keys/${id}/sign`, {
    items: [{ digestBase64: sha256('x'), algorithm: 'RsaPkcs1Sha256' }],
  });
  const single = await api.post(`/v1/keys/${id}/verify`, {
    messageBase64: b64('x'),
    signatureBase64: digests.body.results[0].signatureBase64,
    algorithm: 'RsaPkcs1Sha256',
  });
  t.same(
    single.body,
    { valid: true, algorithm: 'RsaPkcs1Sha256', keyVersion: 1 },
    "a batch's digest signature verifies",
  );
  const rows = (await api.auditOf(id)).filter((r) => r.context['batch.items']);
  t.notOk('input' in rows[0].context, 'messages only: no input');
  t.equal(rows[1].context.input, 'digest');
});
