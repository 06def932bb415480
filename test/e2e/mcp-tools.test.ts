import t from 'tap';
import { ApiClient, b64 } from '../helpers/client.ts';
import { mcpClient, mcpPost } from '../helpers/mcp-client.ts';
import { startTestService } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

const TOOLS = [
  'create_key',
  'get_key',
  'get_public_key',
  'activate_key',
  'encrypt',
  'decrypt',
  'sign',
  'verify',
  'wrap_key',
  'unwrap_key',
  'rotate_key',
  'revoke_key',
  'compromise_key',
  'destroy_key',
  'cancel_destroy',
  'trim_key',
  'query_audit',
  'list_agents',
  'revoke_agent',
  'advisor_scan',
  'advisor_explain',
  'generate_data_key',
  'reencrypt',
  'locate_keys',
  'disable_key',
  'enable_key',
  'tag_key',
  'untag_key',
  'put_alias',
  'delete_alias',
  'list_aliases',
  'get_key_jwks',
  'sign_jwt',
];
const READ_ONLY = [
  'get_key',
  'get_public_key',
  'verify',
  'query_audit',
  'locate_keys',
  'list_agents',
  'advisor_scan',
  'advisor_explain',
  'list_aliases',
  'get_key_jwks',
];
const DESTRUCTIVE = ['rotate_key', 'revoke_key', 'compromise_key', 'destroy_key', 'trim_key', 'revoke_agent'];

t.test('a Human lists every tool, with schemas and annotations, and calls each of them', async (t) => {
  const svc = await startTestService({
    SVC_AUTH_KIND: 'hmac',
    SVC_AUTH_HMAC_SECRET: TEST_SECRET,
    SVC_RISK_ENABLED: 'false',
  });
  t.teardown(() => svc.stop());
  const token = await mintToken({ sub: 'alice' });
  const alice = new ApiClient(svc.url, { Authorization: `Bearer ${token}` });
  const mcp = await mcpClient(svc.url, { Authorization: `Bearer ${token}` });
  t.teardown(() => mcp.close());

  const init = await mcpPost(
    svc.url,
    { Authorization: `Bearer ${token}` },
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    },
  );
  t.match(init.body.result, { serverInfo: { name: 'svc-kms' }, capabilities: { tools: {} } });

  const { tools } = await mcp.listTools();
  t.same(
    tools.map((x) => x.name).sort(),
    [...TOOLS].sort(),
    'the tools of the registry, no token issuing and no operator maintenance',
  );
  for (const tool of tools) {
    t.equal(tool.inputSchema.type, 'object', `${tool.name} input is an object`);
    t.ok(tool.outputSchema, `${tool.name} declares its answer`);
    t.ok(tool.description && tool.description.length > 20, `${tool.name} is described`);
    t.notMatch(tool.description!, new RegExp(TEST_SECRET), 'no secret in a description');
    t.equal(tool.annotations?.readOnlyHint, READ_ONLY.includes(tool.name), `${tool.name} readOnlyHint`);
    t.equal(tool.annotations?.destructiveHint, DESTRUCTIVE.includes(tool.name), `${tool.name} destructiveHint`);
  }
  const encrypt = tools.find((x) => x.name === 'encrypt')!;
  // One item or a batch: the tool's fields are both shapes', required only where both require them.
  t.match(
    encrypt.inputSchema,
    { properties: { keyId: { type: 'string' }, plaintextBase64: {}, items: { type: 'array' } }, required: ['keyId'] },
    'the key id is keyId',
  );
  t.notOk('id' in (encrypt.inputSchema.properties ?? {}));

  const called = new Set<string>();
  const ok = async (name: string, args: Record<string, unknown>) => {
    const answer = await mcp.tool(name, args);
    t.notOk(answer.isError, `${name}: ${JSON.stringify(answer.structuredContent)}`);
    called.add(name);
    return answer.structuredContent!;
  };
  const aes = (await ok('create_key', { spec: { name: 'mcp-aes', algorithm: 'AES' } })).id;
  await ok('activate_key', { keyId: aes });
  await ok('get_key', { keyId: aes });
  t.same((await ok('tag_key', { keyId: aes, tags: { team: 'mcp', env: 'test' } })).tags, { team: 'mcp', env: 'test' });
  t.same((await ok('untag_key', { keyId: aes, keys: 'env' })).tags, { team: 'mcp' });
  t.match(await ok('put_alias', { name: 'alias/mcp-aes', keyId: aes }), { name: 'alias/mcp-aes', keyId: aes });
  t.same(
    (await ok('list_aliases', { keyId: 'alias/mcp-aes' })).aliases.map((a: any) => a.name),
    ['alias/mcp-aes'],
  );
  t.equal((await ok('get_key', { keyId: 'alias/mcp-aes' })).id, aes, 'a key id argument takes an alias');
  t.same(await ok('delete_alias', { name: 'alias/mcp-aes' }), { name: 'alias/mcp-aes', keyId: aes });
  t.equal((await ok('disable_key', { keyId: aes, reason: 'pause' })).enabled, false);
  t.equal((await ok('enable_key', { keyId: aes })).enabled, true);
  const secretText = b64('the plaintext nobody may log');
  const { ciphertextBase64 } = await ok('encrypt', {
    keyId: aes,
    plaintextBase64: secretText,
    context: { app: 'test' },
  });
  t.equal(
    (await ok('decrypt', { keyId: aes, ciphertextBase64, context: { app: 'test' } })).plaintextBase64,
    secretText,
  );
  const dek = Buffer.alloc(32, 7).toString('base64');
  const { wrappedDekBase64 } = await ok('wrap_key', { keyId: aes, dekBase64: dek });
  t.equal((await ok('unwrap_key', { keyId: aes, wrappedDekBase64 })).dekBase64, dek);
  const dataKey = await ok('generate_data_key', { keyId: aes, context: { app: 'test' }, plaintext: false });
  t.notOk('plaintextBase64' in dataKey, 'a data key without its plaintext');
  t.match(await ok('reencrypt', { keyId: aes, ciphertextBase64: dataKey.ciphertextBase64, context: { app: 'test' } }), {
    keyVersion: 1,
    sourceKeyVersion: 1,
  });
  const batch = await ok('encrypt', {
    keyId: aes,
    items: [{ plaintextBase64: secretText }, { plaintextBase64: 'not base64!' }],
  });
  t.match(batch.results, [{ keyVersion: 1 }, { error: 'InvalidField' }], 'a batch through the tool');
  t.equal((await ok('rotate_key', { keyId: aes })).currentVersion ?? 2, 2);
  t.match(await ok('trim_key', { keyId: aes, minVersion: 2 }), { minVersion: 2 });
  await ok('revoke_key', { keyId: aes, reason: 'done' });
  t.match(await ok('destroy_key', { keyId: aes, waitingDays: 3 }), { destroyAt: /^\d{4}-/ });
  await ok('cancel_destroy', { keyId: aes });
  await ok('destroy_key', { keyId: aes });

  const ed = (await ok('create_key', { spec: { name: 'mcp-ed', algorithm: 'EdDSA' } })).id;
  await ok('activate_key', { keyId: ed });
  t.match(await ok('get_public_key', { keyId: ed }), { publicKeyPem: /BEGIN PUBLIC KEY/ });
  t.same(
    (await ok('locate_keys', { name: 'mcp-*', limit: 1 })).keys.map((k: any) => k.id),
    [ed],
    'locate_keys finds keys by name, newest first',
  );
  const { signatureBase64 } = await ok('sign', { keyId: ed, messageBase64: b64('m') });
  t.match(await ok('sign_jwt', { keyId: ed, payload: { sub: 'mcp' } }), { alg: 'EdDSA', kid: `${ed}:1` });
  t.match((await ok('get_key_jwks', { keyId: ed })).keys, [{ kid: `${ed}:1`, crv: 'Ed25519' }]);
  t.equal((await ok('verify', { keyId: ed, messageBase64: b64('m'), signatureBase64 })).valid, true);
  await ok('compromise_key', { keyId: ed, reason: 'test' });

  const agent = (await alice.post('/v1/agents/issue', { label: 'bot', scopes: ['Get'], ttlSeconds: 600 })).body;
  t.ok((await ok('list_agents', {})).agents.some((a: any) => a.agentId === agent.agentId));
  await ok('advisor_explain', { agentId: agent.agentId });
  await ok('revoke_agent', { agentId: agent.agentId });
  await ok('advisor_scan', {});
  const audit = await ok('query_audit', { limit: 1000 });
  t.same([...called].sort(), [...TOOLS].sort(), 'every tool called');

  const trail = JSON.stringify(audit.records);
  t.ok(
    audit.records.filter((r: any) => r.context.door === 'mcp').length >= TOOLS.length,
    'each call audited with door mcp',
  );
  for (const secret of [secretText, dek, agent.jwt, token]) {
    t.notOk(trail.includes(secret), 'no plaintext, data key or token in the audit trail');
    t.notOk(svc.logs.join('\n').includes(secret), 'nor in the log');
  }
});

t.test('mcp.enabled false: no /mcp', async (t) => {
  const svc = await startTestService({ SVC_MCP_ENABLED: 'false' });
  t.teardown(() => svc.stop());
  const res = await mcpPost(svc.url, { 'X-Svc-User': 'alice' }, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
  t.equal(res.status, 404);
  t.equal(
    svc.kernel.doors.some((d) => d.name === 'mcp'),
    false,
  );
});
