import { deflateSync, gzipSync } from 'node:zlib';
import t from 'tap';
import { ApiClient } from '../helpers/client.ts';
import { startTestService } from '../helpers/service.ts';

const svc = await startTestService({ SVC_HTTP_MAX_BODY_BYTES: '2048' });
t.teardown(() => svc.stop());
const api = svc.client();
const anonymous = new ApiClient(svc.url);

t.test('no X-Svc-User, or an empty one, is 401 Unauthorized', async (t) => {
  const res = await anonymous.post('/v1/keys', { spec: { name: 'x', algorithm: 'AES' } });
  t.equal(res.status, 401);
  t.same(res.body, { error: 'Unauthorized', message: 'missing X-Svc-User header (auth.kind is dev)' });
  t.equal((await anonymous.call('GET', '/v1/audit', undefined, { 'X-Svc-User': '' })).status, 401);
});

t.test('unknown route is 404 NotFound, wrong method 405 MethodNotAllowed', async (t) => {
  const missing = await api.get('/v1/nothing');
  t.equal(missing.status, 404);
  t.equal(missing.body.error, 'NotFound');
  const wrong = await api.call('PUT', '/v1/keys');
  t.equal(wrong.status, 405);
  t.equal(wrong.body.error, 'MethodNotAllowed');
});

t.test('a body over the limit is 413, a non-JSON content type 415, malformed JSON 400 BadRequest', async (t) => {
  const big = await api.post('/v1/keys', { spec: { name: 'x'.repeat(4096), algorithm: 'AES' } });
  t.equal(big.status, 413);
  t.equal(big.body.error, 'PayloadTooLarge');
  const text = await api.call('POST', '/v1/keys', 'name=x', { 'Content-Type': 'text/plain' });
  t.equal(text.status, 415);
  t.equal(text.body.error, 'UnsupportedMediaType');
  const broken = await api.call('POST', '/v1/keys', '{"spec": {', { 'Content-Type': 'application/json' });
  t.same(broken.body, { error: 'BadRequest', message: 'request body is not valid JSON' });
  const array = await api.call('POST', '/v1/keys', '[1,2]', { 'Content-Type': 'application/json' });
  t.equal(array.body.error, 'BadRequest');
});

t.test(
  'a gzip or deflate body is read like a plain one; an encoding the ' +
    'service cannot read is 415, and a compressed body is held to the limit ' +
    'once inflated',
  async (t) => {
    const id = await api.key({ algorithm: 'AES' });
    const body = JSON.stringify({ plaintextBase64: Buffer.from('zipped').toString('base64') });
    for (const [encoding, bytes] of [
      ['gzip', gzipSync(body)],
      ['deflate', deflateSync(body)],
    ] as const) {
      const res = await fetch(`${api.base}/v1/keys/${id}/encrypt`, {
        method: 'POST',
        headers: { 'X-Svc-User': 'alice', 'Content-Type': 'application/json', 'Content-Encoding': encoding },
        body: bytes,
      });
      t.equal(res.status, 200, `${encoding}: 200`);
    }
    const unknown = await fetch(`${api.base}/v1/keys/${id}/encrypt`, {
      method: 'POST',
      headers: { 'X-Svc-User': 'alice', 'Content-Type': 'application/json', 'Content-Encoding': 'x-unknown' },
      body,
    });
    t.equal(unknown.status, 415);
    t.equal((await unknown.json()).error, 'UnsupportedMediaType');
    const bomb = gzipSync(JSON.stringify({ plaintextBase64: 'A'.repeat(4096) }));
    const inflated = await fetch(`${api.base}/v1/keys/${id}/encrypt`, {
      method: 'POST',
      headers: { 'X-Svc-User': 'alice', 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
      body: bomb,
    });
    t.equal(inflated.status, 413, `a ${bomb.length}-byte gzip body that inflates past the limit: 413`);
  },
);

t.test('a body-carrying route accepts an empty body where every field is optional', async (t) => {
  const id = await api.key({ algorithm: 'AES' });
  const res = await api.call('POST', `/v1/keys/${id}/rotate`);
  t.equal(res.status, 200);
  t.equal(res.body.currentVersion, 2);
});

t.test('every error body is exactly {error, message}, JSON, with the request id header', async (t) => {
  const res = await api.get('/v1/keys/00000000-0000-4000-8000-000000000000');
  t.same(Object.keys(res.body).sort(), ['error', 'message']);
  t.match(res.headers.get('content-type'), /application\/json/);
  t.ok(res.headers.get('x-request-id'));
});

t.test('an invalid incoming request id is replaced', async (t) => {
  const res = await api.call('GET', '/healthz', undefined, { 'X-Request-Id': 'x'.repeat(200) });
  t.match(res.headers.get('x-request-id'), /^[0-9a-f-]{36}$/);
});
