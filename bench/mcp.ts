import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import {
  activeKey,
  CONNECTIONS,
  load,
  machine,
  median,
  PINNED,
  ROOT,
  ROUNDS,
  SECONDS,
  start,
  type Row,
} from './lib/harness.ts';
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

type Side = { rps: number; perCpuSecond: number; errors: number; p50: number; p99: number };
const rounds: Array<{ rest: Side; mcp: Side }> = [];
try {
  const keyId = await activeKey(svc.url, { algorithm: 'AES' });
  const restUrl = `${svc.url}/v1/keys/${keyId}/encrypt`;
  const mcpUrl = `${svc.url}/mcp`;
  // One call of each first: a door that answers something else than a ciphertext stops the bench here.
  await expectOk('REST', restUrl, PLAINTEXT, {}, restOk);
  await expectOk('MCP', mcpUrl, toolCall(keyId), MCP_HEADERS, mcpOk);

  const rest = (seconds = SECONDS) =>
    load('encrypt 1 KiB, REST', restUrl, PLAINTEXT, seconds, pid, { verifyBody: restOk });
  const mcp = (seconds = SECONDS) =>
    load('encrypt 1 KiB, MCP tools/call', mcpUrl, toolCall(keyId), seconds, pid, {
      headers: MCP_HEADERS,
      verifyBody: mcpOk,
    });
  await rest(3); // warm-up: both doors' hot paths optimised before anything is measured
  await mcp(3);
  for (let round = 1; round <= ROUNDS; round++) {
    process.stderr.write(`round ${round} of ${ROUNDS}\n`);
    const r1 = await rest();
    const m1 = await mcp();
    const m2 = await mcp();
    const r2 = await rest();
    rounds.push({ rest: mean(r1, r2), mcp: mean(m1, m2) });
  }
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

function mean(a: Row, b: Row): Side {
  return {
    rps: (a.rps + b.rps) / 2,
    perCpuSecond: (a.perCpuSecond + b.perCpuSecond) / 2,
    errors: a.errors + b.errors,
    p50: Math.max(a.p50, b.p50),
    p99: Math.max(a.p99, b.p99),
  };
}

/** CPU per call through MCP over CPU per call over REST: REST's requests per CPU second over MCP's. */
const cpuRatio = (r: { rest: Side; mcp: Side }) => r.rest.perCpuSecond / r.mcp.perCpuSecond;
const GOAL = 1.25;
const medianCpu = median(rounds.map(cpuRatio));
const errors = rounds.reduce((n, r) => n + r.rest.errors + r.mcp.errors, 0);
const generated = [
  '<!-- generated:start (by `npm run bench:mcp`; the text outside these markers is kept) -->',
  `Last run: ${machine()}, ${cpus().length} cores (${cpus()[0]?.model.trim()}), load average ${startLoad.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end.`,
  `autocannon ${CONNECTIONS} connections, ${SECONDS} s per run, ${ROUNDS} rounds of REST, MCP, MCP, REST on one service (dev auth, in-memory journal,`,
  `stdout audit to a file, the full chain). ${PINNED ? 'The service is pinned to core 0 (taskset), the load generator to core 1.' : 'Service and load generator share the cores (taskset was not available).'}`,
  `The MCP request is \`POST /mcp\` with \`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"encrypt","arguments":{"keyId":…,"plaintextBase64":…}}}\`,`,
  `\`Accept: application/json, text/event-stream\` and \`MCP-Protocol-Version: ${LATEST_PROTOCOL_VERSION}\` (stateless: no session, no initialize before it).`,
  'Every answer of both is checked for a ciphertext (an MCP tool error is ' +
    'HTTP 200 with `isError`); a failed check counts as an error.',
  '',
  '| round | REST req/s | MCP req/s | REST req per CPU s | MCP req per ' +
    'CPU s | CPU per call, MCP / REST | MCP p50 / p99 ms | REST p50 / p99 ms |',
  '|---|---|---|---|---|---|---|---|',
  ...rounds.map(
    (r, i) =>
      `| ${i + 1} | ${r.rest.rps.toFixed(0)} | ${r.mcp.rps.toFixed(0)} | ${r.rest.perCpuSecond.toFixed(0)} | ${r.mcp.perCpuSecond.toFixed(0)} | ${cpuRatio(r).toFixed(3)} | ${r.mcp.p50} / ${r.mcp.p99} | ${r.rest.p50} / ${r.rest.p99} |`,
  ),
  '',
  `Median CPU per call through MCP over REST: **${medianCpu.toFixed(3)}** (goal: at most ${GOAL.toFixed(2)}, i.e. the MCP door costs at most 25% more CPU per call): **${medianCpu <= GOAL ? 'met' : 'not met'}**. Errors: ${errors}.`,
  '<!-- generated:end -->',
].join('\n');
const docPath = path.join(ROOT, 'docs/benchmarks-mcp.md');
const old = existsSync(docPath)
  ? readFileSync(docPath, 'utf8')
  : '# Benchmark: the MCP door against REST\n\n<!-- generated:start -->\n<!-- generated:end -->\n';
writeFileSync(
  docPath,
  old.replace(/<!-- generated:start[\s\S]*<!-- generated:end -->/, () => generated),
);
process.stderr.write(`${generated}\n${docPath} written\n`);
if (errors > 0) process.exitCode = 1;
