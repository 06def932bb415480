import { connect } from 'node:net';
import t from 'tap';
import { ApiClient } from '../helpers/client.ts';
import { startTestService } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

const svc = await startTestService({
  SVC_HTTP_MAX_BODY_BYTES: '2048',
  SVC_HTTP_HEADERS_TIMEOUT_MS: '1500',
  SVC_HTTP_REQUEST_TIMEOUT_MS: '2000',
});
t.teardown(() => svc.stop());
const anonymous = new ApiClient(svc.url);

/** Sends raw bytes on a fresh connection and resolves with everything the server answered before closing. */
function rawExchange(bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(new URL(svc.url).port), '127.0.0.1');
    let answer = '';
    socket.on('data', (d) => (answer += d));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
    socket.write(bytes);
  });
}

const jsonOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));

t.test(
  'the credential is checked before the body is read: an anonymous caller gets 401 whatever it sends',
  async (t) => {
    const malformed = await anonymous.call('POST', '/v1/keys', '{"spec": ', { 'Content-Type': 'application/json' });
    t.equal(malformed.status, 401);
    const huge = await anonymous.call('POST', '/v1/keys', 'x'.repeat(100_000), { 'Content-Type': 'application/json' });
    t.equal(huge.status, 401, 'not 413: the body was never read');
    const wrongType = await anonymous.call('POST', '/v1/keys', 'name=x', { 'Content-Type': 'text/plain' });
    t.equal(wrongType.status, 401, 'not 415');
  },
);

t.test('svc-system is reserved: no credential may carry it', async (t) => {
  const dev = await anonymous.call('GET', '/v1/keys/00000000-0000-4000-8000-000000000000', undefined, {
    'X-Svc-User': 'svc-system',
  });
  t.equal(dev.status, 401);
  t.match(dev.body, { error: 'Unauthorized', message: /reserved/ });
  const hmac = await startTestService({ SVC_AUTH_KIND: 'hmac', SVC_AUTH_HMAC_SECRET: TEST_SECRET });
  t.teardown(() => hmac.stop());
  const asSystem = new ApiClient(hmac.url, {
    Authorization: `Bearer ${await mintToken({ sub: 'svc-system', svc_kind: 'service' })}`,
  });
  t.equal((await asSystem.post('/v1/keys', { spec: { name: 'x', algorithm: 'AES' } })).status, 401);
  const agentOfSystem = new ApiClient(hmac.url, {
    Authorization: `Bearer ${await mintToken({ sub: 'agent-x', svc_kind: 'agent', svc_parent: 'svc-system', svc_ops: ['Create'] })}`,
  });
  t.equal(
    (await agentOfSystem.post('/v1/keys', { spec: { name: 'x', algorithm: 'AES' } })).status,
    401,
    'nor an agent claiming it as parent',
  );
});

t.test("errors of Node's HTTP parser are answered with a JSON body", async (t) => {
  const garbage = await rawExchange('THIS IS NOT HTTP\r\n\r\n');
  t.match(garbage, /^HTTP\/1\.1 400 /);
  t.same(jsonOf(garbage), { error: 'BadRequest', message: 'the request is not valid HTTP/1.1' });

  const bigHeaders = await rawExchange(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Fill: ${'a'.repeat(20_000)}\r\n\r\n`);
  t.match(bigHeaders, /^HTTP\/1\.1 431 /);
  t.equal(jsonOf(bigHeaders).error, 'HeadersTooLarge');

  const slow = await rawExchange('GET /healthz HTTP/1.1\r\nHost: x\r\n');
  t.match(slow, /^HTTP\/1\.1 408 /, 'headers that never finish are cut off after http.headersTimeoutMs');
  t.equal(jsonOf(slow).error, 'RequestTimeout');
});

t.test('a request target over 8192 characters is 414 URITooLong', async (t) => {
  const res = await svc.client().get(`/v1/keys/${'a'.repeat(9000)}`);
  t.equal(res.status, 414);
  t.equal(res.body.error, 'URITooLong');
});

t.test('a key id that is not a UUID is 404 KeyNotFound, audited as invalid:<hash>, never echoed', async (t) => {
  const api = svc.client('mallory');
  const id = `${'x'.repeat(300)}\u0007`;
  const res = await api.post(`/v1/keys/${encodeURIComponent(id)}/sign`, { messageBase64: 'AA==' });
  t.equal(res.status, 404);
  t.equal(res.body.error, 'KeyNotFound');
  t.notMatch(res.body.message, /xxxx/);
  const rows = (await svc.client('auditor').get('/v1/audit?actor=mallory')).body.records;
  t.match(rows[0], { operation: 'Sign', resource: /^invalid:[0-9a-f]{16}$/, outcome: 'KeyNotFound' });
});

t.test('a malformed body from a known caller is refused and audited like any failed call', async (t) => {
  const api = svc.client('bob');
  const res = await api.call('POST', '/v1/keys', '{"spec": ', { 'Content-Type': 'application/json' });
  t.equal(res.status, 400);
  t.equal(res.body.error, 'BadRequest');
  const rows = (await svc.client('auditor').get('/v1/audit?actor=bob')).body.records;
  t.match(rows[0], { operation: 'Create', outcome: 'BadRequest', resource: 'name:' });
});
