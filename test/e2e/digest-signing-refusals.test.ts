import { createHash } from 'node:crypto';
import t from 'tap';
import { b64 } from '../helpers/client.ts';
import { startTestService } from '../helpers/service.ts';

/** What a digest sign or verify refuses (400 InvalidField, saying why), and what its audit record says. */

const svc = await startTestService();
t.teardown(() => svc.stop());
const api = svc.client();

const sha = (bits: 256 | 384 | 512, text = 'm') => createHash(`sha${bits}`).update(text).digest().toString('base64');
const BOTH = /exactly one of messageBase64 and digestBase64 is required/;

t.test('a digest of another length than the algorithm hash is InvalidField naming the length expected', async (t) => {
  const rsa = await api.key({ algorithm: 'RSA', sizeBits: 2048 });
  const p384 = await api.key({ algorithm: 'EC', curve: 'P-384' });
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    [
      rsa,
      { digestBase64: sha(256), algorithm: 'RsaPssSha384' },
      /48-byte SHA-384 hash .* for RsaPssSha384, not 32 bytes/,
    ],
    [
      rsa,
      { digestBase64: sha(512), algorithm: 'RsaPkcs1Sha256' },
      /32-byte SHA-256 hash .* RsaPkcs1Sha256, not 64 bytes/,
    ],
    [rsa, { digestBase64: sha(384) }, /32-byte SHA-256 hash .* RsaPssSha256, not 48 bytes/],
    [p384, { digestBase64: sha(256) }, /48-byte SHA-384 hash .* EcdsaSha384, not 32 bytes/],
    [p384, { digestBase64: b64(Buffer.alloc(0)) }, /48-byte SHA-384 hash .* not 0 bytes/],
    [p384, { digestBase64: b64(Buffer.alloc(64)), algorithm: 'EcdsaSha256' }, /32-byte SHA-256 .* not 64 bytes/],
  ];
  for (const [id, body, message] of cases) {
    const signed = await api.post(`/v1/keys/${id}/sign`, body);
    t.equal(signed.status, 400, `sign ${JSON.stringify(body)}`);
    t.match(signed.body, { error: 'InvalidField', message });
    t.match(signed.body.message, /^digestBase64 must be/, 'the message names the field');
    const verified = await api.post(`/v1/keys/${id}/verify`, { ...body, signatureBase64: b64('x') });
    t.equal(verified.status, 400, `verify ${JSON.stringify(body)}`);
    t.match(verified.body, { error: 'InvalidField', message });
  }
});

t.test('EdDSA and HMAC keys sign the message itself and refuse a digest', async (t) => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ algorithm: 'EdDSA', curve: 'Ed25519' }, 'Ed25519'],
    [{ algorithm: 'EdDSA', curve: 'Ed448' }, 'Ed448'],
    [{ algorithm: 'HMAC', sizeBits: 256 }, 'HmacSha256'],
    [{ algorithm: 'HMAC', sizeBits: 512 }, 'HmacSha512'],
  ];
  for (const [spec, algorithm] of cases) {
    const id = await api.key(spec);
    const expected = { error: 'InvalidField', message: `${algorithm} signs the message itself; send messageBase64` };
    const signed = await api.post(`/v1/keys/${id}/sign`, { digestBase64: sha(256) });
    t.equal(signed.status, 400);
    t.same(signed.body, expected, `${algorithm} sign`);
    const verified = await api.post(`/v1/keys/${id}/verify`, { digestBase64: sha(256), signatureBase64: b64('x') });
    t.equal(verified.status, 400);
    t.same(verified.body, expected, `${algorithm} verify`);
  }
});

t.test('both a message and a digest, or neither, is InvalidField naming both fields', async (t) => {
  const id = await api.key({ algorithm: 'EC' });
  const signature = (await api.post(`/v1/keys/${id}/sign`, { messageBase64: b64('m') })).body.signatureBase64;
  const bodies: Array<[string, string, Record<string, unknown>]> = [
    ['sign', 'both', { messageBase64: b64('m'), digestBase64: sha(256) }],
    ['sign', 'neither', {}],
    ['sign', 'neither, with an algorithm', { algorithm: 'EcdsaSha256' }],
    ['verify', 'both', { messageBase64: b64('m'), digestBase64: sha(256), signatureBase64: signature }],
    ['verify', 'neither', { signatureBase64: signature }],
  ];
  for (const [operation, what, body] of bodies) {
    const res = await api.post(`/v1/keys/${id}/${operation}`, body);
    t.equal(res.status, 400, `${operation}: ${what}`);
    t.match(res.body, { error: 'InvalidField', message: BOTH });
  }
  const notBase64 = await api.post(`/v1/keys/${id}/sign`, { digestBase64: 'not base64!' });
  t.same(notBase64.body, { error: 'InvalidField', message: 'digestBase64 is not valid standard base64' });
  const unknown = await api.post(`/v1/keys/${id}/sign`, { digest: sha(256) });
  t.equal(unknown.status, 400, 'an unknown field is still refused by the schema');
});

t.test('the audit record says a digest was signed or verified, never its bytes', async (t) => {
  const id = await api.key({ algorithm: 'RSA', sizeBits: 2048 });
  const digest = sha(256, 'audited message');
  const signed = await api.post(`/v1/keys/${id}/sign`, { digestBase64: digest });
  await api.post(`/v1/keys/${id}/verify`, { digestBase64: digest, signatureBase64: signed.body.signatureBase64 });
  await api.post(`/v1/keys/${id}/sign`, { messageBase64: b64('audited message') });
  await api.post(`/v1/keys/${id}/sign`, { digestBase64: sha(384) });
  const rows = (await api.auditOf(id)).filter((r) => r.operation === 'Sign' || r.operation === 'Verify');
  t.match(rows, [
    { operation: 'Sign', outcome: 'Success', context: { input: 'digest', alg: 'RsaPssSha256', keyVersion: '1' } },
    { operation: 'Verify', outcome: 'Success', context: { input: 'digest', alg: 'RsaPssSha256', keyVersion: '1' } },
    { operation: 'Sign', outcome: 'Success', context: { alg: 'RsaPssSha256', keyVersion: '1' } },
    { operation: 'Sign', outcome: 'InvalidField' },
  ]);
  t.notOk('input' in rows[2].context, "a message's record reads as before");
  const trail = JSON.stringify(rows);
  t.notOk(trail.includes(digest), 'no digest in the trail');
  t.notOk(trail.includes(Buffer.from(digest, 'base64').toString('hex')), 'not even as hex');
  t.notOk(trail.includes(signed.body.signatureBase64), 'no signature in the trail');
});
