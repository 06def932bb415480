import { mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { abba, activeKey, CONNECTIONS, load, machine, median, ROOT, ROUNDS, SECONDS, start } from './lib/harness.ts';

/**
 * `npm run bench:rate-limit`: the full chain with the per-principal rate limiter on (limits no load here
 * reaches, so every call is checked and served) against the same chain with it off, in one run, ABBA per
 * round: encrypt 1 KiB and Ed25519 sign, req/s and req per CPU second. Writes docs/benchmarks-rate-limit.md.
 */
const work = mkdtempSync(path.join(tmpdir(), 'svc-bench-rl-'));
const common = { SVC_HTTP_HOST: '127.0.0.1', SVC_HTTP_PORT: '0', SVC_JOURNAL_KIND: 'in-memory', SVC_AUDIT_KIND: 'stdout' };
const on = await start(['app/main.ts'], common, path.join(work, 'on.jsonl'));
const off = await start(['app/main.ts'], { ...common, SVC_RATE_LIMIT_ENABLED: 'false' }, path.join(work, 'off.jsonl'));
try {
  const plaintextBase64 = Buffer.alloc(1024, 7).toString('base64');
  const message = { messageBase64: Buffer.from('a typical message to sign, about sixty-four bytes long......').toString('base64') };
  const keys = async (url: string) => ({ aes: await activeKey(url, { algorithm: 'AES' }), ed: await activeKey(url, { algorithm: 'EdDSA' }) });
  const kOn = await keys(on.url);
  const kOff = await keys(off.url);
  await load('warm-up on', `${on.url}/v1/keys/${kOn.aes}/encrypt`, { plaintextBase64 }, 3);
  await load('warm-up off', `${off.url}/v1/keys/${kOff.aes}/encrypt`, { plaintextBase64 }, 3);
  const rows: string[] = [];
  const ratios = { encrypt: [] as number[], sign: [] as number[], encryptCpu: [] as number[], signCpu: [] as number[] };
  const compare = (what: string, offUrl: string, onUrl: string, body: unknown) =>
    abba(what, { label: 'limiter off', url: offUrl, pid: off.child.pid }, { label: 'limiter on', url: onUrl, pid: on.child.pid }, body);
  for (let round = 1; round <= ROUNDS; round++) {
    const e = await compare('encrypt', `${off.url}/v1/keys/${kOff.aes}/encrypt`, `${on.url}/v1/keys/${kOn.aes}/encrypt`, { plaintextBase64 });
    const s = await compare('sign Ed25519', `${off.url}/v1/keys/${kOff.ed}/sign`, `${on.url}/v1/keys/${kOn.ed}/sign`, message);
    ratios.encrypt.push(e.b.rps / e.a.rps);
    ratios.sign.push(s.b.rps / s.a.rps);
    ratios.encryptCpu.push(e.b.perCpuSecond / e.a.perCpuSecond);
    ratios.signCpu.push(s.b.perCpuSecond / s.a.perCpuSecond);
    const cells = (r: typeof e) => `${r.a.rps.toFixed(0)} | ${r.b.rps.toFixed(0)} | ${(r.b.rps / r.a.rps).toFixed(3)} | ${(r.b.perCpuSecond / r.a.perCpuSecond).toFixed(3)}`;
    rows.push(`| ${round} | ${cells(e)} | ${cells(s)} |`);
  }
  const doc = [
    '# Benchmarks: cost of the rate limiter',
    '',
    '<!-- Written by `npm run bench:rate-limit`. -->',
    '',
    `Run on ${machine()}, ${cpus().length} cores; autocannon ${CONNECTIONS} connections, ${SECONDS} s per run, ${ROUNDS} rounds.`,
    'Both services run the full chain (dev auth, policy, risk, detectors, validation, stdout audit before the answer, metrics).',
    '"On" is the default per-principal token bucket with limits this load never reaches (so every call is checked and',
    'served); "off" is `SVC_RATE_LIMIT_ENABLED=false`. Each round runs off, on, on, off per scenario; the table gives the',
    'mean of each side (req/s) and the on/off ratios per request and per CPU second of the server process.',
    '',
    '| round | encrypt off | encrypt on | req/s ratio | per-CPU ratio | sign off | sign on | req/s ratio | per-CPU ratio |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `Median on/off: encrypt **${median(ratios.encrypt).toFixed(3)}** (per CPU s ${median(ratios.encryptCpu).toFixed(3)}), Ed25519 sign **${median(ratios.sign).toFixed(3)}** (per CPU s ${median(ratios.signCpu).toFixed(3)}). Goal: the limiter costs at most 3% (ratio at least 0.97).`,
    '',
  ].join('\n');
  writeFileSync(path.join(ROOT, 'docs/benchmarks-rate-limit.md'), doc);
  process.stderr.write(doc);
} finally {
  on.child.kill('SIGTERM');
  off.child.kill('SIGTERM');
}
