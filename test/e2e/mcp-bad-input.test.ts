import { connect } from 'node:net';
import t from 'tap';
import { ApiClient } from '../helpers/client.ts';
import { mcpClient, mcpPost, toolsCall } from '../helpers/mcp-client.ts';
import { startTestService } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

const svc = await startTestService({
  SVC_AUTH_KIND: 'hmac',
  SVC_AUTH_HMAC_SECRET: TEST_SECRET,
  SVC_RISK_ENABLED: 'false',
  SVC_HTTP_MAX_BODY_BYTES: '65536',
});
t.teardown(() => svc.stop());
const auth = { Authorization: `Bearer ${await mintToken({ sub: 'alice' })}` };

t.test('no credential, or a bad one: 401 {error, message} before the body is read', async (t) => {
  const none = await mcpPost(svc.url, {}, toolsCall('get_key', {}));
  t.equal(none.status, 401);
  t.match(none.body, { error: 'Unauthorized', message: String });
  t.notOk(none.headers.get('www-authenticate'), 'hmac mode names no resource metadata');
  const bad = await mcpPost(svc.url, { Authorization: 'Bearer not-a-token' }, toolsCall('get_key', {}));
  t.match(bad, { status: 401, body: { error: 'Unauthorized' } });
  // Headers promising 10 MB that never come: the 401 is answered without waiting for a byte of them.
  const port = new URL(svc.url).port;
  const head = await new Promise<string>((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () =>
      socket.write(
        `POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10000000\r\n\r\n`,
      ),
    );
    let text = '';
    socket.on('data', (c) => {
      text += c;
      if (text.includes('\r\n\r\n')) {
        socket.destroy();
        resolve(text);
      }
    });
    socket.on('error', reject);
  });
  t.match(head, /^HTTP\/1\.1 401 /);
});

t.test('malformed JSON-RPC, garbage batches, oversized bodies: JSON-RPC errors, never a 5xx', async (t) => {
  const cases: Array<[string, string | unknown, number, RegExp]> = [
    ['not JSON', '{"jsonrpc": "2.0", "id": 1, "method": ', 400, /Parse error/],
    ['JSON that is not JSON-RPC', { hello: 'world' }, 400, /Invalid JSON-RPC message/],
    ['a batch of garbage', [1, 'two', { three: 3 }, null], 400, /Invalid JSON-RPC message/],
    ['an empty batch', [], 400, /Invalid Request: an empty batch/],
    [
      'nested 30,000 levels deep',
      `{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": ${'['.repeat(30_000)}${']'.repeat(30_000)}}`,
      400,
      /Parse error: the request body is nested deeper than 64 levels/,
    ],
    [
      'over the body limit',
      toolsCall('encrypt', { keyId: 'x', plaintextBase64: 'A'.repeat(70_000) }),
      413,
      /larger than the configured limit/,
    ],
  ];
  for (const [what, body, status, message] of cases) {
    const res = await mcpPost(svc.url, auth, body);
    t.equal(res.status, status, `${what}: ${res.text.slice(0, 200)}`);
    t.match(res.body, { jsonrpc: '2.0', error: { code: Number, message } }, what);
  }
  const get = await fetch(`${svc.url}/mcp`, { headers: { ...auth, Accept: 'text/event-stream' } });
  t.equal(get.status, 405, 'no event stream: the server is stateless');
  t.equal(get.headers.get('allow'), 'POST');
});

t.test('unknown tools, wrong argument types and refused _meta: clear errors', async (t) => {
  const unknown = await mcpPost(svc.url, auth, toolsCall('launch_missiles', {}));
  t.equal(unknown.status, 200);
  t.match(unknown.body, {
    error: { code: -32602, message: /unknown tool "launch_missiles"; tools\/list names the tools you may call/ },
  });
  const notObject = await mcpPost(svc.url, auth, toolsCall('encrypt', 'plaintext'));
  t.match(
    notObject.body,
    { error: { code: -32602, message: 'Invalid params: tools/call arguments must be an object' } },
    'arguments that are not an object',
  );
  const nameless = await mcpPost(svc.url, auth, {
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: { name: 5, arguments: {} },
  });
  t.match(
    nameless,
    {
      status: 200,
      body: { id: 2, error: { code: -32602, message: 'Invalid params: tools/call name must be a string' } },
    },
    'a name that is not a string',
  );
  const noParams = await mcpPost(svc.url, auth, { jsonrpc: '2.0', id: 3, method: 'tools/call' });
  t.match(
    noParams,
    {
      status: 200,
      body: { id: 3, error: { code: -32602, message: 'Invalid params: tools/call params must be an object' } },
    },
    'no params at all',
  );
  const badMeta = await mcpPost(svc.url, auth, {
    jsonrpc: '2.0',
    id: 4,
    method: 'tools/call',
    params: { name: 'get_key', arguments: {}, _meta: 'x' },
  });
  t.match(
    badMeta,
    { status: 400, body: { error: { code: -32700, message: /Invalid JSON-RPC message/ } } },
    '_meta that is not an object is not a JSON-RPC message',
  );
  const task = await mcpPost(svc.url, auth, {
    jsonrpc: '2.0',
    id: 5,
    method: 'tools/call',
    params: { name: 'get_key', arguments: {}, task: { ttl: 1000 } },
  });
  t.match(
    task,
    { status: 200, body: { id: 5, error: { code: Number, message: /does not support task creation/ } } },
    'a task-augmented call: this server offers no tasks',
  );

  const mcp = await mcpClient(svc.url, auth);
  t.teardown(() => mcp.close());
  const key = (await mcp.tool('create_key', { spec: { name: 'bad-input', algorithm: 'AES' } })).structuredContent!.id;
  await mcp.tool('activate_key', { keyId: key });
  t.match(await mcp.tool('encrypt', { keyId: key, plaintextBase64: 5 }), {
    isError: true,
    structuredContent: { error: /InvalidField|BadRequest/, message: /plaintextBase64/ },
  });
  t.match(await mcp.tool('encrypt', { keyId: key, plaintextBase64: 'aGk=', extra: true }), {
    isError: true,
    structuredContent: { message: /extra/ },
  });
  t.match(await mcp.tool('encrypt', { id: key, plaintextBase64: 'aGk=' }), {
    isError: true,
    structuredContent: { error: 'BadRequest', message: 'encrypt takes the key as keyId, not id' },
  });
  t.match(
    await mcp.tool('get_key', {}),
    { isError: true, structuredContent: { message: /id|keyId/ } },
    'a missing key id',
  );
  // JSON.parse keeps "__proto__" as an own member: it reaches the operation as an unknown field, never a prototype.
  const proto = await mcpPost(
    svc.url,
    auth,
    `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"get_key","arguments":{"keyId":"${key}","__proto__":{"admin":true}}}}`,
  );
  t.match(
    proto,
    {
      status: 200,
      body: {
        id: 9,
        result: { isError: true, structuredContent: { error: /BadRequest|InvalidField/, message: /__proto__/ } },
      },
    },
    'an argument named __proto__',
  );
  t.match(await mcp.tool('get_key', { keyId: key }, { 'svc/promptId': 'x'.repeat(129) }), {
    isError: true,
    structuredContent: { error: 'InvalidField', message: '_meta svc/promptId must be at most 128 characters' },
  });
  const refused = (await new ApiClient(svc.url, auth).get(`/v1/audit?key=${key}&op=Get&limit=10`)).body.records;
  t.match(
    refused[0],
    { outcome: 'InvalidField', context: { door: 'mcp' } },
    'a refused _meta value is audited, as a refused header is over REST',
  );
  t.match(
    (await new ApiClient(svc.url, auth).get(`/v1/audit?key=${key}&op=Encrypt&limit=10`)).body.records,
    [
      { outcome: 'BadRequest', context: { door: 'mcp' } },
      { outcome: /InvalidField|BadRequest/, context: { door: 'mcp' } },
    ],
    'so are arguments that do not fit (the two that name the key)',
  );
  const header = await mcpPost(
    svc.url,
    { ...auth, 'X-Svc-Prompt-Id': 'p'.repeat(129) },
    toolsCall('get_key', { keyId: key }),
  );
  t.match(header, {
    status: 400,
    body: { error: 'InvalidField', message: 'X-Svc-Prompt-Id must be at most 128 characters' },
  });
  t.equal((await fetch(`${svc.url}/healthz`)).status < 500, true, 'the service still answers');
});
