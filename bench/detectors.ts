import { mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { CONNECTIONS, machine, median, ROOT, ROUNDS, SECONDS, start } from './lib/harness.ts';
import { pairedRounds } from './lib/paired.ts';

/**
 * `npm run bench:detectors`: the full chain with all six detectors, the auto-responder and risk scoring on,
 * against the same chain with detectors and risk off, in one run (encrypt 1 KiB and Ed25519 sign).
 * Writes docs/benchmarks-detectors.md.
 */
const work = mkdtempSync(path.join(tmpdir(), 'svc-bench-det-'));
const common = {
  SVC_HTTP_HOST: '127.0.0.1',
  SVC_HTTP_PORT: '0',
  SVC_JOURNAL_KIND: 'in-memory',
  SVC_AUDIT_KIND: 'stdout',
};
const on = await start(['app/main.ts'], common, path.join(work, 'on.jsonl'));
const off = await start(
  ['app/main.ts'],
  { ...common, SVC_DETECTORS_ENABLED: 'none', SVC_RISK_ENABLED: 'false' },
  path.join(work, 'off.jsonl'),
);
try {
  // req/s, as before the harness measured CPU time; the pids make the per-CPU numbers available too.
  const rounds = await pairedRounds(
    { label: 'detectors off', url: off.url, pid: off.child.pid },
    { label: 'detectors on', url: on.url, pid: on.child.pid },
  );
  const ratios = {
    encrypt: rounds.map((r) => r.encrypt.b.rps / r.encrypt.a.rps),
    sign: rounds.map((r) => r.sign.b.rps / r.sign.a.rps),
  };
  const rows = rounds.map(
    ({ encrypt: e, sign: s }, i) =>
      `| ${i + 1} | ${e.a.rps.toFixed(0)} | ${e.b.rps.toFixed(0)} | ${(e.b.rps / e.a.rps).toFixed(2)} | ${s.a.rps.toFixed(0)} | ${s.b.rps.toFixed(0)} | ${(s.b.rps / s.a.rps).toFixed(2)} |`,
  );
  const doc = [
    '# Benchmarks: cost of detection',
    '',
    '<!-- Written by `npm run bench:detectors`. -->',
    '',
    `Run on ${machine()}, ${cpus().length} cores; autocannon ${CONNECTIONS} connections, ${SECONDS} s per run, ${ROUNDS} rounds.`,
    'Both services run the full chain (dev auth, policy, validation, stdout ' +
      'audit before the answer, metrics). "On" adds',
    'all six detectors and the auto-responder on every audit record and the risk score on every request (the default);',
    '"off" is `SVC_DETECTORS_ENABLED=none SVC_RISK_ENABLED=false`. The agents here are Humans, so nothing is gated.',
    'Each round runs off, on, on, off for each scenario; the table gives ' +
      'the mean of the two runs of each side (req/s).',
    '',
    '| round | encrypt off | encrypt on | ratio | sign off | sign on | ratio |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `Median on/off: encrypt **${median(ratios.encrypt).toFixed(2)}**, Ed25519 sign **${median(ratios.sign).toFixed(2)}** (goal: at least 0.90).`,
    '',
  ].join('\n');
  writeFileSync(path.join(ROOT, 'docs/benchmarks-detectors.md'), doc);
  process.stderr.write(doc);
} finally {
  on.child.kill('SIGTERM');
  off.child.kill('SIGTERM');
}
