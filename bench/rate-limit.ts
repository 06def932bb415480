import { mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { CONNECTIONS, machine, median, ROOT, ROUNDS, SECONDS, start } from './lib/harness.ts';
import { pairedRounds, type Round } from './lib/paired.ts';

/**
 * `npm run bench:rate-limit`: the full chain with the per-principal rate limiter on (limits no load here
 * reaches, so every call is checked and served) against the same chain with it off, in one run, ABBA per
 * round: encrypt 1 KiB and Ed25519 sign, req/s and req per CPU second. Writes docs/benchmarks-rate-limit.md.
 */
const work = mkdtempSync(path.join(tmpdir(), 'svc-bench-rl-'));
const common = {
  SVC_HTTP_HOST: '127.0.0.1',
  SVC_HTTP_PORT: '0',
  SVC_JOURNAL_KIND: 'in-memory',
  SVC_AUDIT_KIND: 'stdout',
};
const on = await start(['app/main.ts'], common, path.join(work, 'on.jsonl'));
const off = await start(['app/main.ts'], { ...common, SVC_RATE_LIMIT_ENABLED: 'false' }, path.join(work, 'off.jsonl'));
try {
  const rounds = await pairedRounds(
    { label: 'limiter off', url: off.url, pid: off.child.pid },
    { label: 'limiter on', url: on.url, pid: on.child.pid },
  );
  const rps = (r: Round['encrypt']) => r.b.rps / r.a.rps;
  const cpu = (r: Round['encrypt']) => r.b.perCpuSecond / r.a.perCpuSecond;
  const cells = (r: Round['encrypt']) =>
    `${r.a.rps.toFixed(0)} | ${r.b.rps.toFixed(0)} | ${rps(r).toFixed(3)} | ${cpu(r).toFixed(3)}`;
  const rows = rounds.map((r, i) => `| ${i + 1} | ${cells(r.encrypt)} | ${cells(r.sign)} |`);
  const med = (f: (r: Round['encrypt']) => number, what: 'encrypt' | 'sign') =>
    median(rounds.map((r) => f(r[what]))).toFixed(3);
  const doc = [
    '# Benchmarks: cost of the rate limiter',
    '',
    '<!-- Written by `npm run bench:rate-limit`. -->',
    '',
    `Run on ${machine()}, ${cpus().length} cores; autocannon ${CONNECTIONS} connections, ${SECONDS} s per run, ${ROUNDS} rounds.`,
    'Both services run the full chain (dev auth, policy, risk, detectors, ' +
      'validation, stdout audit before the answer, metrics).',
    '"On" is the default per-principal token bucket with limits this load never reaches (so every call is checked and',
    'served); "off" is `SVC_RATE_LIMIT_ENABLED=false`. Each round runs off, ' +
      'on, on, off per scenario; the table gives the',
    'mean of each side (req/s) and the on/off ratios per request and per CPU second of the server process.',
    '',
    '| round | encrypt off | encrypt on | req/s ratio | per-CPU ratio | ' +
      'sign off | sign on | req/s ratio | per-CPU ratio |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `Median on/off: encrypt **${med(rps, 'encrypt')}** (per CPU s ${med(cpu, 'encrypt')}), Ed25519 sign **${med(rps, 'sign')}** (per CPU s ${med(cpu, 'sign')}). Goal: the limiter costs at most 3% (ratio at least 0.97).`,
    '',
  ].join('\n');
  writeFileSync(path.join(ROOT, 'docs/benchmarks-rate-limit.md'), doc);
  process.stderr.write(doc);
} finally {
  on.child.kill('SIGTERM');
  off.child.kill('SIGTERM');
}
