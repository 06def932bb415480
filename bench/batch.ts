import { mkdtempSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { titledDoc, writeGeneratedBlock } from './lib/generated-doc.ts';
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
 * `npm run bench:batch`: encrypt of 1 KiB on one service, one item per call against batches of 100
 * items of 1 KiB (`{items: [...]}`), ABBA per round, in items per second and items per CPU second of the
 * server process (pinned to its own core). Every answer is checked for ciphertexts (a batch's failed
 * item is `{error, message}` inside a 200, so the status alone would not tell). Writes the generated
 * part of docs/benchmarks-batch.md.
 */
const BATCH_ITEMS = 100;
const work = mkdtempSync(path.join(tmpdir(), 'svc-bench-batch-'));
const SERVICE_ENV = {
  SVC_HTTP_HOST: '127.0.0.1',
  SVC_HTTP_PORT: '0',
  SVC_JOURNAL_KIND: 'in-memory',
  SVC_AUDIT_KIND: 'stdout',
};
const svc = await start(['app/main.ts'], SERVICE_ENV, path.join(work, 'audit.jsonl'));
const pid = svc.child.pid!;
const startLoad = loadavg()[0]!;

const BATCH = { items: Array.from({ length: BATCH_ITEMS }, () => PLAINTEXT) };
const singleOk = (body: string) => body.includes('"ciphertextBase64"');
// Every item answered with a ciphertext, none with an error.
const batchOk = (body: string) =>
  !body.includes('"error"') && body.split('"ciphertextBase64"').length - 1 === BATCH_ITEMS;

/** One measured run in items: a call of the batch side carries BATCH_ITEMS items. */
type Side = { itemsPerSecond: number; itemsPerCpuSecond: number; errors: number; p50: number; p99: number };
const rounds: Array<{ single: Side; batch: Side }> = [];
try {
  const keyId = await activeKey(svc.url, { algorithm: 'AES' });
  const url = `${svc.url}/v1/keys/${keyId}/encrypt`;
  await expectOk('single', url, PLAINTEXT, singleOk);
  await expectOk('batch', url, BATCH, batchOk);

  const single = (seconds = SECONDS) =>
    load('encrypt 1 KiB, one item per call', url, PLAINTEXT, seconds, pid, { verifyBody: singleOk });
  const batch = (seconds = SECONDS) =>
    load(`encrypt 1 KiB, ${BATCH_ITEMS} items per call`, url, BATCH, seconds, pid, { verifyBody: batchOk });
  await single(3); // warm-up: both paths optimised before anything is measured
  await batch(3);
  for (let round = 1; round <= ROUNDS; round++) {
    process.stderr.write(`round ${round} of ${ROUNDS}\n`);
    const s1 = await single();
    const b1 = await batch();
    const b2 = await batch();
    const s2 = await single();
    rounds.push({ single: mean(s1, s2, 1), batch: mean(b1, b2, BATCH_ITEMS) });
  }
} finally {
  svc.child.kill('SIGTERM');
}

async function expectOk(what: string, url: string, body: unknown, ok: (body: string) => boolean): Promise<void> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'X-Svc-User': 'bench', 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok || !ok(text))
    throw new Error(`${what} encrypt did not answer ciphertexts: HTTP ${res.status} ${text.slice(0, 400)}`);
}

function mean(a: Row, b: Row, items: number): Side {
  return {
    itemsPerSecond: ((a.rps + b.rps) / 2) * items,
    itemsPerCpuSecond: ((a.perCpuSecond + b.perCpuSecond) / 2) * items,
    errors: a.errors + b.errors,
    p50: Math.max(a.p50, b.p50),
    p99: Math.max(a.p99, b.p99),
  };
}

const GOAL = 5;
const ratio = (r: { single: Side; batch: Side }) => r.batch.itemsPerCpuSecond / r.single.itemsPerCpuSecond;
const medianRatio = median(rounds.map(ratio));
const errors = rounds.reduce((n, r) => n + r.single.errors + r.batch.errors, 0);
const generated = [
  '<!-- generated:start (by `npm run bench:batch`; the text outside these markers is kept) -->',
  `Last run: ${machine()}, ${cpus().length} cores (${cpus()[0]?.model.trim()}), load average ${startLoad.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end.`,
  `autocannon ${CONNECTIONS} connections, ${SECONDS} s per run, ${ROUNDS} rounds of single, batch, batch, single on one service (dev auth, in-memory journal,`,
  `stdout audit to a file, the full chain, rate limiter on with limits no load reaches). ${PINNED ? 'The service is pinned to core 0 (taskset), the load generator to core 1.' : 'Service and load generator share the cores (taskset was not available).'}`,
  `Single: \`POST /v1/keys/{id}/encrypt\` with one plaintext of 1 KiB. Batch: the same URL with \`{"items": [...]}\` of ${BATCH_ITEMS} such plaintexts.`,
  'Every answer is checked: one ciphertext per item and no item error; a failed check counts as an error.',
  '',
  '| round | single items/s | batch items/s | single items per CPU s | ' +
    'batch items per CPU s | batch / single, per CPU s | single p50 / p99 ' +
    'ms | batch p50 / p99 ms (per call) |',
  '|---|---|---|---|---|---|---|---|',
  ...rounds.map(
    (r, i) =>
      `| ${i + 1} | ${r.single.itemsPerSecond.toFixed(0)} | ${r.batch.itemsPerSecond.toFixed(0)} | ${r.single.itemsPerCpuSecond.toFixed(0)} | ${r.batch.itemsPerCpuSecond.toFixed(0)} | ${ratio(r).toFixed(1)} | ${r.single.p50} / ${r.single.p99} | ${r.batch.p50} / ${r.batch.p99} |`,
  ),
  '',
  `Median items per server CPU second, batch over single: **${medianRatio.toFixed(1)}x** (goal: at least ${GOAL}x): **${medianRatio >= GOAL ? 'met' : 'not met'}**. Errors: ${errors}.`,
  '<!-- generated:end -->',
].join('\n');
writeGeneratedBlock(
  path.join(ROOT, 'docs/benchmarks-batch.md'),
  generated,
  titledDoc('Benchmark: batch encrypt against single calls'),
);
if (errors > 0) process.exitCode = 1;
