import { mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { abba, activeKey, call, CONNECTIONS, load, machine, median, ROOT, ROUNDS, SECONDS, start } from './lib/harness.ts';

/**
 * `npm run bench:detectors`: the full chain with all six detectors, the auto-responder and risk scoring on,
 * against the same chain with detectors and risk off, in one run (encrypt 1 KiB and Ed25519 sign).
 * Writes docs/benchmarks-detectors.md.
 */
const work = mkdtempSync(path.join(tmpdir(), 'svc-bench-det-'));
const common = { SVC_HTTP_HOST: '127.0.0.1', SVC_HTTP_PORT: '0', SVC_JOURNAL_KIND: 'in-memory', SVC_AUDIT_KIND: 'stdout' };
const on = await start(['app/main.ts'], common, path.join(work, 'on.jsonl'));
const off = await start(['app/main.ts'], { ...common, SVC_DETECTORS_ENABLED: 'none', SVC_RISK_ENABLED: 'false' }, path.join(work, 'off.jsonl'));
try {
  const plaintextBase64 = Buffer.alloc(1024, 7).toString('base64');
  const message = { messageBase64: Buffer.from('a typical message to sign, about sixty-four bytes long......').toString('base64') };
  const keys = async (url: string) => ({ aes: await activeKey(url, { algorithm: 'AES' }), ed: await activeKey(url, { algorithm: 'EdDSA' }) });
  const kOn = await keys(on.url);
  const kOff = await keys(off.url);
  await call(`${on.url}/v1/keys/${kOn.aes}/encrypt`, 'POST', { plaintextBase64 });
  await load('warm-up on', `${on.url}/v1/keys/${kOn.aes}/encrypt`, { plaintextBase64 }, 3);
  await load('warm-up off', `${off.url}/v1/keys/${kOff.aes}/encrypt`, { plaintextBase64 }, 3);
  const rows: string[] = [];
  const ratios: Record<string, number[]> = { encrypt: [], sign: [] };
  const compare = async (what: string, offUrl: string, onUrl: string, body: unknown) => {
    const r = await abba(what, { label: 'detectors off', url: offUrl }, { label: 'detectors on', url: onUrl }, body);
    return { off: r.a.rps, on: r.b.rps };
  };
  for (let round = 1; round <= ROUNDS; round++) {
    const e = await compare('encrypt', `${off.url}/v1/keys/${kOff.aes}/encrypt`, `${on.url}/v1/keys/${kOn.aes}/encrypt`, { plaintextBase64 });
    const s = await compare('sign Ed25519', `${off.url}/v1/keys/${kOff.ed}/sign`, `${on.url}/v1/keys/${kOn.ed}/sign`, message);
    ratios.encrypt!.push(e.on / e.off);
    ratios.sign!.push(s.on / s.off);
    rows.push(`| ${round} | ${e.off.toFixed(0)} | ${e.on.toFixed(0)} | ${(e.on / e.off).toFixed(2)} | ${s.off.toFixed(0)} | ${s.on.toFixed(0)} | ${(s.on / s.off).toFixed(2)} |`);
  }
  const doc = [
    '# Benchmarks: cost of detection',
    '',
    '<!-- Written by `npm run bench:detectors`. -->',
    '',
    `Run on ${machine()}, ${cpus().length} cores; autocannon ${CONNECTIONS} connections, ${SECONDS} s per run, ${ROUNDS} rounds.`,
    'Both services run the full chain (dev auth, policy, validation, stdout audit before the answer, metrics). "On" adds',
    'all six detectors and the auto-responder on every audit record and the risk score on every request (the default);',
    '"off" is `SVC_DETECTORS_ENABLED=none SVC_RISK_ENABLED=false`. The agents here are Humans, so nothing is gated.',
    'Each round runs off, on, on, off for each scenario; the table gives the mean of the two runs of each side (req/s).',
    '',
    '| round | encrypt off | encrypt on | ratio | sign off | sign on | ratio |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `Median on/off: encrypt **${median(ratios.encrypt!).toFixed(2)}**, Ed25519 sign **${median(ratios.sign!).toFixed(2)}** (goal: at least 0.90).`,
    '',
  ].join('\n');
  writeFileSync(path.join(ROOT, 'docs/benchmarks-detectors.md'), doc);
  process.stderr.write(doc);
} finally {
  on.child.kill('SIGTERM');
  off.child.kill('SIGTERM');
}
