import { writeFileSync } from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';
import { ApiClient, b64 } from '../helpers/client.ts';
import { startTestService, tempDir } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

// The door answers tools/call itself; the SDK server answered it before and still answers every other
// method. The same requests, sent to /mcp and to the same endpoint with tools/call left to the SDK server
// (/mcp-sdk, a test door on the same listener and pipeline), must get the same HTTP status, headers and
// JSON-RPC body, and leave the same audit records.
const dir = tempDir();
const config = path.join(dir, 'svc.yaml');
writeFileSync(config, `plugins:\n  - ${path.resolve('test/fixtures/mcp-sdk-door.ts')}\n`);
const svc = await startTestService(
  { SVC_CONFIG_FILE: config, SVC_AUTH_KIND: 'hmac', SVC_AUTH_HMAC_SECRET: TEST_SECRET },
  { dir },
);
t.teardown(() => svc.stop());
const aliceAuth = { Authorization: `Bearer ${await mintToken({ sub: 'alice' })}` };
const alice = new ApiClient(svc.url, aliceAuth);
const aes = await alice.key({ algorithm: 'AES' });
const ed = await alice.key({ algorithm: 'EdDSA' });
// Decrypt and an Ed25519 signature are deterministic: valid calls answer the same bytes both ways.
const ciphertext = (await alice.post(`/v1/keys/${aes}/encrypt`, { plaintextBase64: b64('conformance') })).body
  .ciphertextBase64 as string;
const agent = (await alice.post('/v1/agents/issue', { label: 'reader', scopes: ['Get'], ttlSeconds: 600 })).body;
const agentAuth = { Authorization: `Bearer ${agent.jwt}` };

const call = (params: unknown, id: unknown = 1) => ({ jsonrpc: '2.0', id, method: 'tools/call', params });
const tool = (name: string, args: unknown, extra: Record<string, unknown> = {}, id: unknown = 1) =>
  call({ name, arguments: args, ...extra }, id);

interface Answer {
  status: number;
  headers: Record<string, string>;
  text: string;
  requestId: string | null;
}

let sent = 0;

async function post(
  mount: string,
  auth: Record<string, string>,
  body: unknown,
  headers: Record<string, string>,
  requestId: string,
): Promise<Answer> {
  const res = await fetch(`${svc.url}${mount}`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': '2025-11-25',
      'X-Request-Id': requestId,
      ...auth,
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  const kept: Record<string, string> = {};
  // Everything but the date and the request id (each request has its own, checked below).
  res.headers.forEach((value, name) => {
    if (name !== 'date' && name !== 'x-request-id') kept[name] = value;
  });
  return { status: res.status, headers: kept, text, requestId: res.headers.get('x-request-id') };
}

/** Sends the body to both paths (the door's first, then the SDK server's) and checks the answers are the same. */
async function same(
  t: Test,
  what: string,
  body: unknown,
  opts: { auth?: Record<string, string>; headers?: Record<string, string> } = {},
): Promise<{ door: Answer; sdk: Answer; ids: [string, string] }> {
  const n = ++sent;
  const ids: [string, string] = [`conf-${n}-door`, `conf-${n}-sdk`];
  const door = await post('/mcp', opts.auth ?? aliceAuth, body, opts.headers ?? {}, ids[0]);
  const sdk = await post('/mcp-sdk', opts.auth ?? aliceAuth, body, opts.headers ?? {}, ids[1]);
  t.equal(door.status, sdk.status, `${what}: HTTP status`);
  t.same(door.headers, sdk.headers, `${what}: headers`);
  t.equal(door.text, sdk.text, `${what}: body, byte for byte`);
  t.same([door.requestId, sdk.requestId], ids, `${what}: each answer under its request id`);
  return { door, sdk, ids };
}

t.test('valid calls of several tools, with string and number ids', async (t) => {
  const get = await same(t, 'get_key', tool('get_key', { keyId: aes }, {}, 'str-id'));
  t.match(JSON.parse(get.door.text), { id: 'str-id', result: { structuredContent: { id: aes } } }, 'a real answer');
  const sign = await same(t, 'sign', tool('sign', { keyId: ed, messageBase64: b64('m') }, {}, 7));
  t.match(JSON.parse(sign.door.text), { id: 7, result: { structuredContent: { signatureBase64: String } } });
  const signature = JSON.parse(sign.door.text).result.structuredContent.signatureBase64;
  await same(t, 'verify', tool('verify', { keyId: ed, messageBase64: b64('m'), signatureBase64: signature }, {}, 0));
  const dec = await same(t, 'decrypt', tool('decrypt', { keyId: aes, ciphertextBase64: ciphertext }, {}, -3));
  t.equal(
    Buffer.from(JSON.parse(dec.door.text).result.structuredContent.plaintextBase64, 'base64').toString(),
    'conformance',
  );
  await same(t, 'get_public_key', tool('get_public_key', { keyId: ed }, {}, Number.MAX_SAFE_INTEGER));
  await same(t, 'an empty string id', tool('get_key', { keyId: aes }, {}, ''));
  await same(t, 'no arguments member', call({ name: 'list_agents' }, 'la'));
});

t.test('tool errors: the REST code and message as an isError answer', async (t) => {
  const missing = await same(t, 'an unknown key', tool('get_key', { keyId: '00000000-0000-4000-8000-000000000000' }));
  t.match(JSON.parse(missing.door.text), { result: { isError: true, structuredContent: { error: 'KeyNotFound' } } });
  await same(t, 'a missing required argument', tool('encrypt', { keyId: aes }));
  await same(t, 'an argument of the wrong type', tool('encrypt', { keyId: aes, plaintextBase64: 42 }));
  await same(t, 'an unknown argument', tool('get_key', { keyId: aes, color: 'red' }));
  await same(t, 'id instead of keyId', tool('get_key', { id: aes }));
  await same(t, 'a bad ciphertext', tool('decrypt', { keyId: aes, ciphertextBase64: b64('not a ciphertext') }));
  await same(
    t,
    'an argument named __proto__',
    `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_key","arguments":{"keyId":"${aes}","__proto__":{"x":1}}}}`,
  );
  const refused = await same(t, 'an agent outside its scopes', tool('sign', { keyId: ed, messageBase64: b64('m') }), {
    auth: agentAuth,
  });
  t.match(JSON.parse(refused.door.text), {
    result: { isError: true, structuredContent: { error: 'PermissionDenied' } },
  });
});

t.test('JSON-RPC errors: unknown tool, params, name, arguments', async (t) => {
  const unknown = await same(t, 'an unknown tool', tool('no_such_tool', {}));
  t.match(JSON.parse(unknown.door.text), { error: { code: -32602, message: /unknown tool "no_such_tool"/ } });
  await same(t, 'a very long unknown tool name', tool('x'.repeat(500), {}));
  await same(t, 'no params', { jsonrpc: '2.0', id: 1, method: 'tools/call' });
  await same(t, 'params an array', call([1, 2]));
  await same(t, 'params null', call(null));
  const nameNumber = await same(t, 'a number as name', call({ name: 5, arguments: {} }));
  t.match(JSON.parse(nameNumber.door.text), { error: { code: -32602, message: /name must be a string/ } });
  await same(t, 'a null name', call({ name: null }));
  await same(t, 'no name', call({ arguments: {} }));
  await same(t, 'arguments an array', call({ name: 'get_key', arguments: [aes] }));
  await same(t, 'arguments a string', call({ name: 'get_key', arguments: 'x' }));
  await same(t, '_meta a string', call({ name: 'get_key', arguments: { keyId: aes }, _meta: 'x' }));
  await same(t, 'a fractional id', tool('get_key', { keyId: aes }, {}, 1.5));
  await same(t, 'an object id', tool('get_key', { keyId: aes }, {}, { a: 1 }));
  await same(t, 'an extra envelope member', { ...tool('get_key', { keyId: aes }), extra: true });
});

t.test('_meta: progress tokens, prompt ids, model, a related task', async (t) => {
  await same(t, 'a string progress token', tool('get_key', { keyId: aes }, { _meta: { progressToken: 'p' } }));
  await same(t, 'a number progress token', tool('get_key', { keyId: aes }, { _meta: { progressToken: 12 } }));
  await same(t, 'a fractional progress token', tool('get_key', { keyId: aes }, { _meta: { progressToken: 1.5 } }));
  await same(
    t,
    'a prompt id and model',
    tool(
      'sign',
      { keyId: ed, messageBase64: b64('p') },
      { _meta: { 'svc/promptId': 'conf-prompt', 'svc/model': 'conf-model' } },
    ),
  );
  await same(t, 'a refused prompt id', tool('get_key', { keyId: aes }, { _meta: { 'svc/promptId': 'a\u0000b' } }));
  await same(t, 'a prompt id that is not a string', tool('get_key', { keyId: aes }, { _meta: { 'svc/promptId': 5 } }));
  await same(
    t,
    'a related task',
    tool('get_key', { keyId: aes }, { _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't-1' } } }),
  );
  await same(
    t,
    'a related task without an id',
    tool('get_key', { keyId: aes }, { _meta: { 'io.modelcontextprotocol/related-task': {} } }),
  );
  await same(t, 'prompt and model headers', tool('get_key', { keyId: aes }), {
    headers: { 'X-Svc-Prompt-Id': 'conf-header-prompt', 'X-Svc-Model': 'conf-header-model' },
  });
  await same(t, 'a refused model header', tool('get_key', { keyId: aes }), {
    headers: { 'X-Svc-Model': 'x'.repeat(200) },
  });
});

t.test('task-augmented calls: refused as the SDK server refuses them (it offers no tasks)', async (t) => {
  const task = await same(t, 'a task with a ttl', tool('get_key', { keyId: aes }, { task: { ttl: 60000 } }));
  t.match(JSON.parse(task.door.text), { error: { code: -32603, message: /does not support task creation/ } });
  await same(t, 'an empty task', tool('get_key', { keyId: aes }, { task: {} }));
  // Not a task the SDK reads as one: the call is run.
  await same(t, 'a task that is a string', tool('get_key', { keyId: aes }, { task: 'x' }));
  await same(t, 'a task with a string ttl', tool('get_key', { keyId: aes }, { task: { ttl: 'soon' } }));
  await same(t, 'a task of null', tool('get_key', { keyId: aes }, { task: null }));
});

t.test('batches: tools/calls among other methods and notifications, answered in order', async (t) => {
  const batch = [
    tool('get_key', { keyId: aes }, {}, 'a'),
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    tool('no_such_tool', {}, {}, 3),
    { jsonrpc: '2.0', id: 4, method: 'ping' },
    tool('get_key', { keyId: aes }, { task: { ttl: 1 } }, 5),
    { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'a' } },
    tool('decrypt', { keyId: aes, ciphertextBase64: ciphertext }, {}, 6),
    call({ name: 7 }, 7),
    { jsonrpc: '2.0', id: 8, method: 'no/such' },
  ];
  const answer = await same(t, 'a mixed batch', batch);
  t.same(
    JSON.parse(answer.door.text).map((m: { id: unknown }) => m.id),
    ['a', 2, 3, 4, 5, 6, 7, 8],
  );
  await same(t, 'a batch of tools/calls only', [
    tool('get_key', { keyId: aes }, {}, 1),
    tool('get_key', { keyId: ed }, {}, 1),
    tool('sign', { keyId: ed, messageBase64: b64('b') }, {}, 2),
  ]);
  await same(t, 'a batch with the same tools/call twice', [
    tool('get_key', { keyId: aes }, {}, 1),
    tool('get_key', { keyId: aes }, {}, 1),
  ]);
  await same(t, 'notifications only', [
    { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } },
  ]);
  await same(t, 'a batch with one bad message', [tool('get_key', { keyId: aes }), { jsonrpc: '2.0', id: 1 }]);
  await same(t, 'an empty batch', []);
});

t.test('refusals of the whole POST, before any tools/call', async (t) => {
  await same(t, 'no credential', tool('get_key', { keyId: aes }), { auth: {} });
  await same(t, 'a bad protocol version', tool('get_key', { keyId: aes }), {
    headers: { 'MCP-Protocol-Version': '1999-01-01' },
  });
  await same(t, 'no event-stream in Accept', tool('get_key', { keyId: aes }), {
    headers: { Accept: 'application/json' },
  });
  await same(t, 'not JSON', '{"jsonrpc": ');
  await same(t, 'arguments not an object, in a batch', [
    tool('get_key', { keyId: aes }),
    call({ name: 'get_key', arguments: 1 }),
  ]);
});

t.test('the audit records of both paths are the same but for time, ids and chain', async (t) => {
  const initialize = {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'conf-client', version: '9.9' } },
  };
  const session = (await same(t, 'initialize', initialize)).door.headers['mcp-session-id']!;
  t.ok(session, 'the initialize answer names the client in its session id');
  const { ids } = await same(
    t,
    'a call to audit',
    tool('sign', { keyId: ed, messageBase64: b64('audited') }, { _meta: { 'svc/promptId': 'conf-audit' } }),
    { headers: { 'X-Svc-Model': 'conf-audit-model', 'Mcp-Session-Id': session } },
  );
  const refused = await same(
    t,
    'a refused call to audit',
    tool('get_key', { keyId: aes }, { _meta: { 'svc/promptId': 'conf-audit-refused', 'svc/model': 'm\u0001' } }),
  );
  const rows = (await alice.get('/v1/audit?limit=1000')).body.records as Array<Record<string, unknown>>;
  // The record id, time and request id differ, and so does the risk score: its rate-spike factor grows with each
  // call of the caller's, so the second of the two scores a little higher. The decision, the factors'
  // names and everything else must be the same.
  const stable = (r: Record<string, unknown>) => {
    const {
      id: _record,
      occurredAt: _at,
      correlationId: _request,
      context,
      ...rest
    } = r as { id: string; occurredAt: string; correlationId: string; context: Record<string, string> };
    const { 'risk.score': _score, 'risk.factors': factors, ...kept } = context;
    return { ...rest, context: { ...kept, 'risk.factors': factors?.replace(/:[0-9.]+/g, '') } };
  };
  for (const [door, sdk] of [ids, refused.ids]) {
    const doorRows = rows.filter((r) => r.correlationId === door);
    const sdkRows = rows.filter((r) => r.correlationId === sdk);
    t.equal(doorRows.length, 1, `${door}: one record`);
    t.same(doorRows.map(stable), sdkRows.map(stable), `${door}: the same record both ways`);
  }
  t.match(
    rows.find((r) => r.correlationId === ids[0]),
    {
      operation: 'Sign',
      outcome: 'Success',
      context: {
        door: 'mcp',
        'agent.promptId': 'conf-audit',
        'agent.model': 'conf-audit-model',
        'mcp.client': 'conf-client/9.9',
      },
    },
  );
  t.match(
    rows.find((r) => r.correlationId === refused.ids[0]),
    { outcome: 'InvalidField', context: { door: 'mcp', 'outcome.decision': 'Allow' } },
  );
});
