import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { benchAccessKey, signedAwsHeaders } from './lib/aws-request.ts';
import { activeKey, load, start } from './lib/harness.ts';
import { PLAINTEXT } from './lib/paired.ts';

/**
 * `tsx bench/profile-door.ts rest|mcp|aws [seconds] [dir]`: the service of bench/mcp.ts under ONE door's encrypt
 * load alone (3 s of warm-up, then `seconds`), started with `node --cpu-prof` so that its CPU profile lands
 * in `dir` when it exits (open it in Chrome DevTools or speedscope; the biggest file is the main thread's).
 * Prints the load's requests per second and per CPU second. BENCH_PROFILE_FLAGS replaces the node flags
 * (for example `--trace-gc`, whose lines go to the service's stdout file, named at the end).
 */
const [door = 'mcp', secondsText = '15', outDir = mkdtempSync(path.join(tmpdir(), 'svc-profile-'))] =
  process.argv.slice(2);
if (door !== 'rest' && door !== 'mcp' && door !== 'aws')
  throw new Error('usage: tsx bench/profile-door.ts rest|mcp|aws [seconds] [dir]');
const seconds = Number(secondsText);
const work = mkdtempSync(path.join(tmpdir(), 'svc-profile-work-'));
const stdoutFile = path.join(work, 'stdout.log');
const flags = process.env.BENCH_PROFILE_FLAGS
  ? process.env.BENCH_PROFILE_FLAGS.split(' ')
  : ['--cpu-prof', `--cpu-prof-dir=${outDir}`];
const svc = await start(
  [...flags, 'app/main.ts'],
  { SVC_HTTP_HOST: '127.0.0.1', SVC_HTTP_PORT: '0', SVC_JOURNAL_KIND: 'in-memory', SVC_AUDIT_KIND: 'stdout' },
  stdoutFile,
);
const pid = svc.child.pid!;
try {
  const keyId = await activeKey(svc.url, { algorithm: 'AES' });
  const mcpHeaders = { Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': LATEST_PROTOCOL_VERSION };
  const toolCall = {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'encrypt', arguments: { keyId, ...PLAINTEXT } },
  };
  const awsUrl = new URL(`${svc.url}/aws/kms`);
  const awsBody = { KeyId: keyId, Plaintext: PLAINTEXT.plaintextBase64 };
  const credentials = door === 'aws' ? await benchAccessKey(svc.url) : undefined;
  const run = async (s: number) =>
    door === 'rest'
      ? load('encrypt 1 KiB, REST', `${svc.url}/v1/keys/${keyId}/encrypt`, PLAINTEXT, s, pid)
      : door === 'aws'
        ? load('encrypt 1 KiB, AWS Encrypt', awsUrl.href, awsBody, s, pid, {
            headers: await signedAwsHeaders(awsUrl, 'Encrypt', awsBody, credentials!),
          })
        : load('encrypt 1 KiB, MCP tools/call', `${svc.url}/mcp`, toolCall, s, pid, { headers: mcpHeaders });
  await run(3);
  const row = await run(seconds);
  process.stdout.write(
    `${JSON.stringify({ door, seconds, requests: Math.round(row.rps * seconds), perCpuSecond: Math.round(row.perCpuSecond), profiles: outDir, stdout: stdoutFile })}\n`,
  );
} finally {
  svc.child.kill('SIGTERM');
  await new Promise((resolve) => svc.child.once('exit', resolve));
}
if (!process.env.BENCH_PROFILE_FLAGS)
  process.stderr.write(
    `profiles: ${readdirSync(outDir)
      .map((f) => path.join(outDir, f))
      .join(', ')}\n`,
  );
