import { mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { measureDoorVersusRest } from './lib/door-versus-rest.ts';
import { activeKey, load, start } from './lib/harness.ts';
import { PLAINTEXT } from './lib/paired.ts';

/**
 * `npm run bench:mcp`: the same encrypt of 1 KiB on one service, over REST (POST /v1/keys/:id/encrypt) and
 * through the MCP door (a stateless JSON-RPC tools/call POSTed to /mcp), ABBA per round, req/s and requests
 * per CPU second of the server process. Every answer is checked (a tool error is HTTP 200 with isError, so
 * the status alone would not tell). Writes the generated part of docs/benchmarks-mcp.md.
 */
const work = mkdtempSync(path.join(tmpdir(), 'svc-bench-mcp-'));
const SERVICE_ENV = {
  SVC_HTTP_HOST: '127.0.0.1',
  SVC_HTTP_PORT: '0',
  SVC_JOURNAL_KIND: 'in-memory',
  SVC_AUDIT_KIND: 'stdout',
};
const svc = await start(['app/main.ts'], SERVICE_ENV, path.join(work, 'audit.jsonl'));
const pid = svc.child.pid!;
const startLoad = loadavg()[0]!;

/** What an MCP client sends after initialize: JSON or a stream accepted, the agreed protocol version. */
const MCP_HEADERS = { Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': LATEST_PROTOCOL_VERSION };
const toolCall = (keyId: string) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'encrypt', arguments: { keyId, ...PLAINTEXT } },
});
const restOk = (body: string) => body.includes('"ciphertextBase64"');
const mcpOk = (body: string) =>
  body.includes('"ciphertextBase64"') && !body.includes('"isError":true') && !body.includes('"error":{');

let errors = 0;
try {
  const keyId = await activeKey(svc.url, { algorithm: 'AES' });
  const restUrl = `${svc.url}/v1/keys/${keyId}/encrypt`;
  const mcpUrl = `${svc.url}/mcp`;
  // One call of each first: a door that answers something else than a ciphertext stops the bench here.
  await expectOk('REST', restUrl, PLAINTEXT, {}, restOk);
  await expectOk('MCP', mcpUrl, toolCall(keyId), MCP_HEADERS, mcpOk);
  errors = await measureDoorVersusRest(
    {
      door: 'MCP',
      doc: 'mcp',
      title: 'Benchmark: the MCP door against REST',
      rest: (seconds) => load('encrypt 1 KiB, REST', restUrl, PLAINTEXT, seconds, pid, { verifyBody: restOk }),
      doorLoad: (seconds) =>
        load('encrypt 1 KiB, MCP tools/call', mcpUrl, toolCall(keyId), seconds, pid, {
          headers: MCP_HEADERS,
          verifyBody: mcpOk,
        }),
      request: [
        `The MCP request is \`POST /mcp\` with \`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"encrypt","arguments":{"keyId":…,"plaintextBase64":…}}}\`,`,
        `\`Accept: application/json, text/event-stream\` and \`MCP-Protocol-Version: ${LATEST_PROTOCOL_VERSION}\` (stateless: no session, no initialize before it).`,
        'Every answer of both is checked for a ciphertext (an MCP tool error is ' +
          'HTTP 200 with `isError`); a failed check counts as an error.',
      ],
    },
    startLoad,
  );
} finally {
  svc.child.kill('SIGTERM');
}

async function expectOk(
  what: string,
  url: string,
  body: unknown,
  headers: Record<string, string>,
  ok: (body: string) => boolean,
): Promise<void> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'X-Svc-User': 'bench', 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok || !ok(text))
    throw new Error(`${what} encrypt did not answer a ciphertext: HTTP ${res.status} ${text.slice(0, 400)}`);
}

if (errors > 0) process.exitCode = 1;
