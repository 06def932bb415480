import { createServer } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import t, { type Test } from 'tap';
import { ApiClient } from '../helpers/client.ts';
import { cliEnv, svc, SVC_BIN } from '../helpers/cli.ts';
import { startTestService, tempDir } from '../helpers/service.ts';
import { makeTestPki } from '../helpers/tls-certs.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

// Risk gating off: an agent's first calls on a key would be stepped up, which is not what this file tests.
const service = await startTestService({
  SVC_AUTH_KIND: 'hmac',
  SVC_AUTH_HMAC_SECRET: TEST_SECRET,
  SVC_RISK_ENABLED: 'false',
});
t.teardown(() => service.stop());
const aliceToken = await mintToken({ sub: 'alice' }, { ttlSeconds: 3600 });
const alice = new ApiClient(service.url, { Authorization: `Bearer ${aliceToken}` });
const b64 = (text: string) => Buffer.from(text).toString('base64');

interface Session {
  client: Client;
  /** What svc mcp wrote to stderr so far. */
  stderr(): string;
  /** Errors the MCP client saw on its side of stdio (a line on stdout that is not a JSON-RPC message, say). */
  transportErrors: Error[];
}

/** An MCP client that starts `svc mcp` as a local command, as Claude Desktop and the like do. */
async function startSvcMcp(
  t: Test,
  env: Record<string, string>,
  args: string[] = [],
): Promise<{ session: Session; connected: Promise<void> }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SVC_BIN, 'mcp', ...args],
    env: cliEnv(tempDir('svc-mcp-home-'), env) as Record<string, string>,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr!.on('data', (d: Buffer) => (stderr += d));
  const client = new Client({ name: 'cli-mcp-test', version: '1.2.3' });
  const session: Session = { client, stderr: () => stderr, transportErrors: [] };
  client.onerror = (err) => session.transportErrors.push(err);
  t.teardown(() => client.close());
  return { session, connected: client.connect(transport) };
}

async function connected(t: Test, env: Record<string, string>, args: string[] = []): Promise<Session> {
  const { session, connected } = await startSvcMcp(t, env, args);
  await connected;
  return session;
}

/** A port nothing listens on: bound once, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

type ToolAnswer = {
  isError?: boolean;
  structuredContent?: Record<string, any>;
  content: Array<{ type: string; text?: string }>;
};

t.test(
  'a Human over svc mcp: initialize, list, create, encrypt and decrypt, ' +
    'audited as door mcp with model, prompt and client',
  async (t) => {
    const { client, stderr, transportErrors } = await connected(t, { SVC_SERVER: service.url, SVC_TOKEN: aliceToken }, [
      '--model',
      'test-model-1',
      '--prompt-id',
      'cli-mcp-prompt',
    ]);
    t.equal(client.getServerVersion()?.name, 'svc-kms', 'initialize was answered by the service');
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    for (const name of ['create_key', 'activate_key', 'encrypt', 'decrypt', 'sign', 'query_audit', 'list_agents'])
      t.ok(names.includes(name), `lists ${name}`);

    const created = (await client.callTool({
      name: 'create_key',
      arguments: { spec: { name: 'over-stdio', algorithm: 'AES' } },
    })) as ToolAnswer;
    t.notOk(created.isError, JSON.stringify(created));
    const keyId = created.structuredContent!.id as string;
    t.equal(
      ((await client.callTool({ name: 'activate_key', arguments: { keyId } })) as ToolAnswer).structuredContent!.state,
      'Active',
    );
    const encrypted = (await client.callTool({
      name: 'encrypt',
      arguments: { keyId, plaintextBase64: b64('secret over stdio'), context: { app: 'cli' } },
    })) as ToolAnswer;
    t.notOk(encrypted.isError, JSON.stringify(encrypted));
    t.same(JSON.parse(encrypted.content[0]!.text!), encrypted.structuredContent, 'the text content is the same JSON');
    const decrypted = (await client.callTool({
      name: 'decrypt',
      arguments: { keyId, ciphertextBase64: encrypted.structuredContent!.ciphertextBase64, context: { app: 'cli' } },
    })) as ToolAnswer;
    t.equal(Buffer.from(decrypted.structuredContent!.plaintextBase64, 'base64').toString(), 'secret over stdio');
    const overRest = await alice.post(`/v1/keys/${keyId}/decrypt`, {
      ciphertextBase64: encrypted.structuredContent!.ciphertextBase64,
      context: { app: 'cli' },
    });
    t.equal(
      Buffer.from(overRest.body.plaintextBase64, 'base64').toString(),
      'secret over stdio',
      'a ciphertext made through svc mcp decrypts over REST',
    );

    const records = (await alice.get('/v1/audit?promptId=cli-mcp-prompt&limit=100')).body.records as Array<{
      operation: string;
      principal: { subject: string };
      context: Record<string, string>;
    }>;
    t.same(
      records.map((r) => r.operation).reverse(),
      ['Create', 'Activate', 'Encrypt', 'Decrypt'],
      'one record per tool call, found by the prompt id given to svc mcp',
    );
    for (const r of records) {
      t.match(r, {
        principal: { subject: 'alice' },
        context: {
          door: 'mcp',
          'agent.model': 'test-model-1',
          'agent.promptId': 'cli-mcp-prompt',
          'mcp.client': 'cli-mcp-test/1.2.3',
        },
      });
    }
    t.same(transportErrors, [], 'stdout held only JSON-RPC messages');
    t.notMatch(stderr(), aliceToken, 'the credential is never written out');
  },
);

t.test(
  'an agent token given with SVC_TOKEN sees only the tools of its scopes; another tool is refused by the service',
  async (t) => {
    const issued = (await alice.post('/v1/agents/issue', { label: 'stdio-bot', scopes: ['Encrypt'], ttlSeconds: 600 }))
      .body;
    const keyId = await alice.key({ name: 'agent-target', algorithm: 'AES' });
    const { client } = await connected(t, { SVC_SERVER: service.url, SVC_TOKEN: issued.jwt });
    t.same(
      (await client.listTools()).tools.map((tool) => tool.name),
      ['encrypt', 'generate_data_key'],
      'only the tools of its Encrypt scope',
    );
    const ok = (await client.callTool({
      name: 'encrypt',
      arguments: { keyId, plaintextBase64: b64('x') },
    })) as ToolAnswer;
    t.notOk(ok.isError, JSON.stringify(ok));
    const refused = (await client.callTool({
      name: 'decrypt',
      arguments: { keyId, ciphertextBase64: ok.structuredContent!.ciphertextBase64 },
    })) as ToolAnswer;
    t.equal(refused.isError, true);
    t.equal(refused.structuredContent!.error, 'PermissionDenied', 'the REST error code, decided by the service');
    const rows = (await alice.get(`/v1/audit?actor=${issued.agentId}&limit=10`)).body.records as Array<{
      operation: string;
      outcome: string;
      context: Record<string, string>;
    }>;
    t.same(
      rows.map((r) => `${r.operation}:${r.outcome}:${r.context.door}`),
      ['Decrypt:PermissionDenied:mcp', 'Encrypt:Success:mcp'],
      'both audited by the service',
    );
  },
);

t.test(
  'a bad credential: the MCP client gets a JSON-RPC error naming the 401, and stderr says what to do',
  async (t) => {
    const forged = await mintToken({ sub: 'alice' }, { secret: 'not-the-service-secret-but-long-enough-0123456789' });
    const { session, connected } = await startSvcMcp(t, { SVC_SERVER: service.url, SVC_TOKEN: forged });
    const err = await connected.then(
      () => undefined,
      (e: unknown) => e,
    );
    t.ok(err instanceof McpError, `initialize fails with a JSON-RPC error: ${String(err)}`);
    t.equal((err as McpError).code, -32011);
    t.match((err as McpError).message, /answered HTTP 401 \(Unauthorized: .+\); run svc login again/);
    t.match((err as McpError).data, { httpStatus: 401, error: 'Unauthorized' });
    t.match(session.stderr(), /svc mcp: .*\/mcp answered HTTP 401/);
    t.notMatch(session.stderr(), forged, 'the token is not echoed');
  },
);

t.test(
  'a service that is down: a JSON-RPC error saying it cannot be reached, on stdout as an answer and on stderr',
  async (t) => {
    const { session, connected } = await startSvcMcp(t, {
      SVC_SERVER: `http://127.0.0.1:${await closedPort()}`,
      SVC_TOKEN: aliceToken,
    });
    const err = await connected.then(
      () => undefined,
      (e: unknown) => e,
    );
    t.ok(err instanceof McpError, String(err));
    t.equal((err as McpError).code, -32010);
    t.match((err as McpError).message, /cannot reach the service at http:\/\/127\.0\.0\.1:\d+\/mcp \(ECONNREFUSED\)/);
    t.match(session.stderr(), /cannot reach the service/);
  },
);

t.test('a line that is not JSON-RPC is answered with an error of id null; stdout holds nothing else', async (t) => {
  const r = await svc(
    ['mcp'],
    cliEnv(tempDir(), { SVC_SERVER: service.url, SVC_TOKEN: aliceToken }),
    'not json\n{"jsonrpc":"2.0","id":7}\n',
  );
  t.equal(r.code, 0, 'ends when stdin closes');
  const lines = r.out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  t.same(
    lines.map((l) => [l.id, l.error.code]),
    [
      [null, -32700],
      [null, -32600],
    ],
  );
  t.match(r.stderr, /it is not JSON[\s\S]*not a JSON-RPC 2\.0 message/);
});

t.test(
  'a client that writes its messages and closes stdin gets every answer, then svc mcp exits quietly',
  async (t) => {
    const messages = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'piped', version: '1' } },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    ];
    const r = await svc(
      ['mcp'],
      cliEnv(tempDir(), { SVC_SERVER: service.url, SVC_TOKEN: aliceToken }),
      messages.map((m) => `${JSON.stringify(m)}\n`).join(''),
    );
    t.equal(r.code, 0);
    const answers = r.out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    t.same(
      answers.map((a) => a.id),
      [1, 2],
      'both requests answered before exiting',
    );
    t.ok(answers[1].result.tools.length > 0);
    // The optional event stream the HTTP transport opens after initialized is aborted by the close: no failure.
    t.equal(r.stderr.trim(), `svc mcp: forwarding stdio to ${service.url}/mcp`, 'nothing but the start line on stderr');
  },
);

t.test(
  'over HTTPS with a private CA: --ca-file as for every command; without it the certificate is refused, clearly',
  async (t) => {
    const pki = makeTestPki();
    const tls = await startTestService({
      SVC_HTTP_TLS_CERT_FILE: pki.serverCertFile,
      SVC_HTTP_TLS_KEY_FILE: pki.serverKeyFile,
    });
    t.teardown(() => tls.stop());
    const server = `https://127.0.0.1:${tls.kernel.address!.port}`;
    const { client } = await connected(t, { SVC_SERVER: server, SVC_USER: 'alice' }, ['--ca-file', pki.caFile]);
    t.ok(
      (await client.listTools()).tools.some((tool) => tool.name === 'encrypt'),
      'tools listed over HTTPS',
    );
    const { connected: refused } = await startSvcMcp(t, { SVC_SERVER: server, SVC_USER: 'alice' });
    const err = await refused.then(
      () => undefined,
      (e: unknown) => e,
    );
    t.equal((err as McpError).code, -32010, String(err));
    t.match(
      (err as McpError).message,
      /cannot reach the service at https:.*\((SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)\)/,
    );
  },
);

t.test('svc mcp --help explains itself with an example', async (t) => {
  const r = await svc(['mcp', '--help'], cliEnv(tempDir()));
  t.equal(r.code, 0);
  t.match(r.out, /global --model \/ --prompt-id[\s\S]*Examples?:\n\s+\$ svc mcp/);
});
