import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { titledDoc, writeGeneratedBlock } from './lib/generated-doc.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { PARAMETER_SETS, type ParameterSet } from '../kernel/index.ts';
import { call, CONNECTIONS, cpuSeconds, machine, PINNED, ROOT, start } from './lib/harness.ts';

/**
 * `npm run bench:post-quantum` (Node 24 only; on a runtime without ML-DSA it says so and exits 0, so that
 * `npm run bench` can run it on Node 20): one service (full chain, dev auth, in-memory journal, stdout audit to a
 * file) with one key per ML-DSA and SLH-DSA parameter set and one Ed25519 key. A sign pass, then a verify pass, of a
 * 1 KiB message over every set, interleaved with Ed25519 (Ed25519, set 1, set 1, Ed25519, set 2, set 2, Ed25519...):
 * requests per second of the server process's CPU time (the service and its libuv thread pool pinned to core 0), and
 * the ratio to the Ed25519 runs either side; plus the sizes of a signature, the public key (SPKI DER) and the private key (PKCS#8 DER, exported)
 * of each key made. Writes the generated part of docs/benchmarks-post-quantum.md.
 *
 * Ed25519, ML-DSA sign and every verify are loaded for BENCH_SECONDS (default 3 here) with 50 connections. An
 * SLH-DSA signature takes from 25 ms to 2.4 s of CPU, so its sign loads are a fixed number of requests on few
 * connections (every request answered, so the CPU measured is the CPU of the requests counted): 1 connection and
 * BENCH_PQ_SLOW_REQUESTS (default 3) requests per run for the "s" sets, 2 connections and enough requests for about
 * BENCH_SECONDS per run for the "f" sets. Before each load the bench waits for the server to go idle, so that no
 * work left over from the previous load is counted in the next one.
 */
const HAS_ML_DSA = (() => {
  try {
    generateKeyPairSync('ml-dsa-44' as never);
    return true;
  } catch {
    return false;
  }
})();
if (!HAS_ML_DSA) {
  process.stderr.write(
    `bench:post-quantum skipped: Node ${process.version} has no ML-DSA or SLH-DSA (node:crypto has them from Node 24, with OpenSSL 3.5); docs/benchmarks-post-quantum.md is left as it was\n`,
  );
  process.exit(0);
}

const began = Date.now();
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const SLOW_REQUESTS = Number(process.env.BENCH_PQ_SLOW_REQUESTS ?? 3);
/** The SLH-DSA "s" (small signature, slow signing) sets: SLH-DSA-SHA2-128s... */
const isSmall = (label: string) => label.startsWith('SLH-DSA') && label.endsWith('s');
const MESSAGE = Buffer.alloc(1024, 7);
const HEADERS = { 'X-Svc-User': 'bench', 'Content-Type': 'application/json' };

/** How one side of a pair is loaded: for `seconds` (autocannon's duration) or for `amount` requests. */
interface Plan {
  connections: number;
  seconds?: number;
  amount?: number;
}
interface Run {
  requests: number;
  elapsed: number;
  cpu: number;
  p50: number;
  p99: number;
  errors: number;
}
/** Two runs of one side, added up: req/s and req per CPU second over both runs' totals. */
interface Side {
  rps: number;
  perCpuSecond: number;
  p50: number;
  p99: number;
  errors: number;
  requests: number;
}

const work = mkdtempSync(path.join(tmpdir(), 'svc-bench-post-quantum-'));
const svc = await start(
  ['app/main.ts'],
  { SVC_HTTP_HOST: '127.0.0.1', SVC_HTTP_PORT: '0', SVC_JOURNAL_KIND: 'in-memory', SVC_AUDIT_KIND: 'stdout' },
  path.join(work, 'audit.jsonl'),
);
const pid = svc.child.pid!;
const startLoad = loadavg()[0]!;

/** Waits until the server has used under 2% of a core for 0.5 s (at most 30 s): nothing of the last load left. */
async function settle(): Promise<void> {
  const until = Date.now() + 30_000;
  let last = cpuSeconds(pid);
  while (Date.now() < until) {
    await sleep(500);
    const now = cpuSeconds(pid);
    if (now - last <= 0.01) return;
    last = now;
  }
}

let runErrors = 0;
async function run(name: string, url: string, body: string, plan: Plan, ok: (body: string) => boolean): Promise<Run> {
  const idle = performance.now();
  await settle();
  const waited = (performance.now() - idle) / 1000;
  const before = cpuSeconds(pid);
  const result = await autocannon({
    url,
    method: 'POST',
    connections: plan.connections,
    ...(plan.amount ? { amount: plan.amount } : { duration: plan.seconds ?? SECONDS }),
    timeout: 60,
    // autocannon ends a run at its next sample: every 50 ms rather than every second, so that a run of a fixed number
    // of requests ends, and its req/s is counted, within 50 ms of its last answer.
    ...(plan.amount ? { sampleInt: 50 } : {}),
    headers: HEADERS,
    body,
    verifyBody: (b: unknown) => ok(String(b)),
  });
  const cpu = cpuSeconds(pid) - before;
  const elapsed = (result.finish.getTime() - result.start.getTime()) / 1000;
  const r = {
    requests: result.requests.total,
    elapsed,
    cpu,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors + (result.mismatches ?? 0),
  };
  runErrors += r.errors;
  process.stderr.write(
    `${name.padEnd(34)} (idle after ${waited.toFixed(1)} s) ${String(r.requests).padStart(6)} req in ${elapsed.toFixed(1)} s, CPU ${cpu.toFixed(2)} s: ${(r.requests / elapsed).toFixed(1).padStart(7)} req/s ${(cpu > 0 ? r.requests / cpu : 0).toFixed(1).padStart(7)} req/CPU-s  p50 ${r.p50} ms  p99 ${r.p99} ms  errors ${r.errors}\n`,
  );
  return r;
}

function add(a: Run, b: Run): Side {
  const requests = a.requests + b.requests;
  return {
    rps: requests / (a.elapsed + b.elapsed),
    perCpuSecond: requests / (a.cpu + b.cpu),
    p50: Math.max(a.p50, b.p50),
    p99: Math.max(a.p99, b.p99),
    errors: a.errors + b.errors,
    requests,
  };
}

const b64 = (b: Buffer) => b.toString('base64');
const bytes = (base64: string) => Buffer.from(base64, 'base64').length;
const signOk = (body: string) => body.includes('"signatureBase64"');
const verifyOk = (body: string) => body.includes('"valid":true');

interface Subject {
  label: string;
  id: string;
  strength?: number;
  signature: string;
  /** A sign call's latency, in ms (the second call, or the only one of an "s" set): sizes an "f" set's sign loads. */
  signMs: number;
  sizes: { signature: number; spki: number; pkcs8: number };
}

/** Makes an exportable active key, signs once (timed), and reads its sizes: signature, SPKI DER, PKCS#8 DER. */
async function subject(label: string, spec: Record<string, unknown>): Promise<Subject> {
  const made = await call(`${svc.url}/v1/keys`, 'POST', {
    spec: { name: `bench-${randomUUID()}`, exportable: true, ...spec },
    activate: true,
  });
  const id: string = made.id;
  // An SLH-DSA "s" set signs once (up to 2.4 s); the others twice, timed the second time (the first is a cold call).
  let signed: { signatureBase64: string } | undefined;
  let signMs = 0;
  for (let i = isSmall(label) ? 1 : 2; i > 0; i--) {
    const t0 = performance.now();
    signed = await call(`${svc.url}/v1/keys/${id}/sign`, 'POST', { messageBase64: b64(MESSAGE) });
    signMs = performance.now() - t0;
  }
  const pem: string = (await call(`${svc.url}/v1/keys/${id}/public-key`, 'GET')).publicKeyPem;
  const spki = Buffer.from(pem.replace(/-----[A-Z ]+-----|\s/g, ''), 'base64').length;
  const exported = await call(`${svc.url}/v1/keys/${id}/export`, 'POST', {});
  if (exported.format !== 'pkcs8-der') throw new Error(`${label}: export format ${exported.format}`);
  process.stderr.write(`${label}: key made, a sign ${signMs.toFixed(0)} ms\n`);
  return {
    label,
    id,
    strength: spec.parameterSet ? made.spec?.sizeBits : undefined,
    signature: signed!.signatureBase64,
    signMs,
    sizes: { signature: bytes(signed!.signatureBase64), spki, pkcs8: bytes(exported.materialBase64) },
  };
}

const FAST: Plan = { connections: CONNECTIONS, seconds: SECONDS };
function signPlan(s: Subject): Plan {
  if (isSmall(s.label)) return { connections: 1, amount: SLOW_REQUESTS };
  if (s.label.startsWith('SLH-DSA'))
    return { connections: 2, amount: Math.min(200, Math.max(10, 2 * Math.round((SECONDS * 500) / s.signMs))) };
  return FAST;
}
const describe = (p: Plan) =>
  p.amount ? `${p.amount} requests, ${p.connections} conn.` : `${p.seconds} s, ${p.connections} conn.`;

interface Pair {
  plan: Plan;
  set: Side;
  ed: Side;
}
interface Result {
  s: Subject;
  sign: Pair;
  verify: Pair;
}

/**
 * One pass of sign or verify over every set, interleaved with Ed25519: Ed25519, set 1, set 1, Ed25519, set 2, set 2,
 * Ed25519... Each set's two runs stand between two Ed25519 runs (ABBA, the Ed25519 runs shared with the neighbouring
 * sets), so that a drift of the machine moves both sides of a ratio alike.
 */
async function pass(what: 'sign' | 'verify', ed: Subject, subjects: Subject[]): Promise<{ pairs: Pair[]; eds: Run[] }> {
  const body = (x: Subject) =>
    JSON.stringify(
      what === 'sign' ? { messageBase64: b64(MESSAGE) } : { messageBase64: b64(MESSAGE), signatureBase64: x.signature },
    );
  const ok = what === 'sign' ? signOk : verifyOk;
  const load = (x: Subject, p: Plan) => run(`${what} ${x.label}`, `${svc.url}/v1/keys/${x.id}/${what}`, body(x), p, ok);
  const pairs: Pair[] = [];
  let before = await load(ed, FAST);
  const eds = [before];
  for (const s of subjects) {
    const plan = what === 'sign' ? signPlan(s) : FAST;
    const s1 = await load(s, plan);
    const s2 = await load(s, plan);
    const after = await load(ed, FAST);
    pairs.push({ plan, set: add(s1, s2), ed: add(before, after) });
    eds.push(after);
    before = after;
  }
  return { pairs, eds };
}

let errors = 0;
try {
  const ed = await subject('Ed25519', { algorithm: 'EdDSA', curve: 'Ed25519' });
  const subjects: Subject[] = [];
  for (const set of PARAMETER_SETS as readonly ParameterSet[])
    subjects.push(await subject(set, { algorithm: set.startsWith('ML-') ? 'ML-DSA' : 'SLH-DSA', parameterSet: set }));

  // Warm-up: let V8 optimise the sign and verify paths, small and large bodies, before anything is measured (a
  // shorter one left the first Ed25519 sign run a third slower than the next).
  process.stderr.write('warming up...\n');
  const slhVerify = subjects.find((x) => x.label === 'SLH-DSA-SHA2-128f')!;
  for (const [what, x, seconds] of [
    ['sign', ed, 5],
    ['verify', ed, 3],
    ['sign', subjects[0]!, 3],
    ['verify', subjects[0]!, 3],
    ['verify', slhVerify, 2],
    ['sign', ed, 3],
  ] as const) {
    const body = { messageBase64: b64(MESSAGE), ...(what === 'verify' ? { signatureBase64: x.signature } : {}) };
    await run(
      `warm-up ${what} ${x.label}`,
      `${svc.url}/v1/keys/${x.id}/${what}`,
      JSON.stringify(body),
      { connections: CONNECTIONS, seconds },
      what === 'sign' ? signOk : verifyOk,
    );
  }

  const signs = await pass('sign', ed, subjects);
  const verifies = await pass('verify', ed, subjects);
  const results: Result[] = subjects.map((s, i) => ({ s, sign: signs.pairs[i]!, verify: verifies.pairs[i]! }));
  const spread = (runs: Run[]) => {
    const xs = runs.map((r) => r.requests / r.cpu);
    return `${Math.min(...xs).toFixed(0)} to ${Math.max(...xs).toFixed(0)}`;
  };
  // Every run's errors, once (an Ed25519 run is in two pairs).
  errors = runErrors;
  const minutes = (Date.now() - began) / 60_000;

  const ratio = (p: Pair) => p.set.perCpuSecond / p.ed.perCpuSecond;
  const num = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
  const rows = (what: 'sign' | 'verify') =>
    results.map(({ s, ...r }) => {
      const p = r[what];
      return `| ${s.label} | ${describe(p.plan)} | ${p.set.requests} | ${num(p.set.rps)} | **${num(p.set.perCpuSecond)}** | ${p.set.p50} / ${p.set.p99} | ${num(p.ed.perCpuSecond)} | **${ratio(p).toPrecision(3)}** | ${p.set.errors} |`;
    });
  const header = (what: string) => [
    `| set | ${what} load, each of 2 runs | requests | req/s | req per CPU s | p50 / p99 ms | Ed25519 ${what} req per CPU s, the runs either side | ratio to Ed25519 per CPU s | errors |`,
    '|---|---|---|---|---|---|---|---|---|',
  ];
  const generated = [
    '<!-- generated:start (by `npm run bench:post-quantum`; the text outside these markers is kept) -->',
    `Last run: ${machine()}, ${process.versions.openssl ? `OpenSSL ${process.versions.openssl}, ` : ''}${cpus().length} cores (${cpus()[0]?.model.trim()}), load average ${startLoad.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end; the whole bench took ${minutes.toFixed(1)} minutes.`,
    `One service (dev auth, in-memory journal, stdout audit to a file, the full chain). ${PINNED ? 'The service, its libuv thread pool included, is pinned to core 0 (taskset), the load generator (autocannon) to core 1.' : 'Service and load generator share the cores (taskset was not available).'}`,
    'Each call signs or verifies a 1 KiB message: `POST /v1/keys/{id}/sign` with `messageBase64`, `/verify` with it and a',
    'signature the key made at the start. Every answer is checked for a signature or `"valid":true`; a failed check is an error.',
    'One round: a sign pass over every set, then a verify pass, each interleaved with Ed25519 (Ed25519, set 1, set 1,',
    "Ed25519, set 2, set 2, Ed25519...): each set's two runs stand between two Ed25519 runs, ABBA with the Ed25519 runs",
    "shared by neighbouring sets. req per CPU s is requests answered per second of the server process's CPU time (user +",
    'system of all its threads, from /proc/PID/stat), total requests over total CPU of the two runs of a side; the ratio is',
    "the set's over that of the Ed25519 runs either side. req/s is total requests over total time; p50 / p99 the larger of the two runs'.",
    `How each was loaded: Ed25519, ML-DSA sign and every verify for ${SECONDS} s per run with ${CONNECTIONS} connections. An SLH-DSA sign`,
    'is a fixed number of requests per run, all answered (so the CPU counted is that of the requests counted): the "s" sets',
    `${SLOW_REQUESTS} requests on 1 connection, so p50 is one signature's time and p99 the slowest of ${2 * SLOW_REQUESTS}; the "f" sets 2 connections and`,
    `enough requests for about ${SECONDS} s (from the time of one sign before the round). Before each run the bench waits for the`,
    `server to go idle (under 2% of a core for 0.5 s). The Ed25519 side is always the ${CONNECTIONS}-connection load, so every ratio is against`,
    'the same Ed25519 baseline.',
    '',
    '### Sign',
    '',
    ...header('sign'),
    ...rows('sign'),
    '',
    `The ${signs.eds.length} Ed25519 sign runs of the pass ranged from ${spread(signs.eds)} req per CPU s.`,
    '',
    '### Verify',
    '',
    ...header('verify'),
    ...rows('verify'),
    '',
    `The ${verifies.eds.length} Ed25519 verify runs of the pass ranged from ${spread(verifies.eds)} req per CPU s.`,
    '',
    '### Sizes',
    '',
    'Measured from the keys made: a signature of the 1 KiB message, the public key as SPKI DER (`GET /v1/keys/{id}/public-key`,',
    'the PEM decoded) and the private key as PKCS#8 DER (`POST /v1/keys/{id}/export`, the material as the service stores it).',
    '',
    '| set | strength, bits | signature bytes | public key bytes (SPKI DER) | private key bytes (PKCS#8 DER) |',
    '|---|---|---|---|---|',
    ...[ed, ...subjects].map(
      (s) => `| ${s.label} | ${s.strength ?? 128} | ${s.sizes.signature} | ${s.sizes.spki} | ${s.sizes.pkcs8} |`,
    ),
    '',
    `Errors: ${errors}.`,
    '<!-- generated:end -->',
  ].join('\n');
  writeGeneratedBlock(
    path.join(ROOT, 'docs/benchmarks-post-quantum.md'),
    generated,
    titledDoc('Benchmark: post-quantum signatures against Ed25519'),
  );
} finally {
  svc.child.kill('SIGTERM');
}
if (errors > 0) process.exitCode = 1;
