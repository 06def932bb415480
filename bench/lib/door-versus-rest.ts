import { mkdtempSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { titledDoc, writeGeneratedBlock } from './generated-doc.ts';
import { TEST_SECRET } from '../../test/helpers/tokens.ts';
import { CONNECTIONS, machine, median, PINNED, ROOT, ROUNDS, SECONDS, type Row, start } from './harness.ts';

/**
 * A service for a door against REST with each door's production credential: REST a bearer token (HS256,
 * the hmac authenticator; with the dev header REST's authentication would cost nothing), in-memory
 * journal, stdout audit to a file of the run's own.
 */
export function startBearerService(name: string) {
  const work = mkdtempSync(path.join(tmpdir(), `svc-bench-${name}-`));
  const env = {
    SVC_HTTP_HOST: '127.0.0.1',
    SVC_HTTP_PORT: '0',
    SVC_JOURNAL_KIND: 'in-memory',
    SVC_AUDIT_KIND: 'stdout',
    SVC_AUTH_KIND: 'hmac',
    SVC_AUTH_HMAC_SECRET: TEST_SECRET,
  };
  return start(['app/main.ts'], env, path.join(work, 'audit.jsonl'));
}

type Side = { rps: number; perCpuSecond: number; errors: number; p50: number; p99: number };

/** A door measured against REST encrypt on one service: how each side is loaded, and what the document says. */
export interface DoorVersusRest {
  door: string;
  /** Loads REST encrypt (or the door's call) for `seconds`; each answer checked. */
  rest(seconds?: number): Promise<Row>;
  doorLoad(seconds?: number): Promise<Row>;
  /** Lines describing the door's request, for the document. */
  request: string[];
  /** docs/benchmarks-<name>.md and its title, for a first run. */
  doc: string;
  title: string;
  /** How callers authenticate on the service, for the document (default: dev auth, the X-Svc-User header). */
  auth?: string;
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

/**
 * Warm-up, then ROUNDS rounds of REST, door, door, REST (ABBA, so drift within a round cancels), and the
 * generated part of the door's benchmark document: the CPU per call through the door over REST's, whose
 * goal is at most 1.25. Answers the number of errors.
 */
export async function measureDoorVersusRest(bench: DoorVersusRest, startLoad: number): Promise<number> {
  const rounds: Array<{ rest: Side; door: Side }> = [];
  await bench.rest(3);
  await bench.doorLoad(3);
  for (let round = 1; round <= ROUNDS; round++) {
    process.stderr.write(`round ${round} of ${ROUNDS}\n`);
    const r1 = await bench.rest();
    const d1 = await bench.doorLoad();
    const d2 = await bench.doorLoad();
    const r2 = await bench.rest();
    rounds.push({ rest: mean(r1, r2), door: mean(d1, d2) });
  }
  const { door } = bench;
  /** CPU per call through the door over CPU per call over REST: REST's requests per CPU second over the door's. */
  const cpuRatio = (r: { rest: Side; door: Side }) => r.rest.perCpuSecond / r.door.perCpuSecond;
  const GOAL = 1.25;
  const medianCpu = median(rounds.map(cpuRatio));
  const errors = rounds.reduce((n, r) => n + r.rest.errors + r.door.errors, 0);
  const generated = [
    `<!-- generated:start (by \`npm run bench:${bench.doc}\`; the text outside these markers is kept) -->`,
    `Last run: ${machine()}, ${cpus().length} cores (${cpus()[0]?.model.trim()}), load average ${startLoad.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end.`,
    `autocannon ${CONNECTIONS} connections, ${SECONDS} s per run, ${ROUNDS} rounds of REST, ${door}, ${door}, REST on one service (${bench.auth ?? 'dev auth'}, in-memory journal,`,
    `stdout audit to a file, the full chain). ${PINNED ? 'The service is pinned to core 0 (taskset), the load generator to core 1.' : 'Service and load generator share the cores (taskset was not available).'}`,
    ...bench.request,
    '',
    `| round | REST req/s | ${door} req/s | REST req per CPU s | ${door} req per CPU s | CPU per call, ${door} / REST | ${door} p50 / p99 ms | REST p50 / p99 ms |`,
    '|---|---|---|---|---|---|---|---|',
    ...rounds.map(
      (r, i) =>
        `| ${i + 1} | ${r.rest.rps.toFixed(0)} | ${r.door.rps.toFixed(0)} | ${r.rest.perCpuSecond.toFixed(0)} | ${r.door.perCpuSecond.toFixed(0)} | ${cpuRatio(r).toFixed(3)} | ${r.door.p50} / ${r.door.p99} | ${r.rest.p50} / ${r.rest.p99} |`,
    ),
    '',
    `Median CPU per call through ${door} over REST: **${medianCpu.toFixed(3)}** (goal: at most ${GOAL.toFixed(2)}, i.e. the ${door} door costs at most 25% more CPU per call): **${medianCpu <= GOAL ? 'met' : 'not met'}**. Errors: ${errors}.`,
    '<!-- generated:end -->',
  ].join('\n');
  writeGeneratedBlock(path.join(ROOT, `docs/benchmarks-${bench.doc}.md`), generated, titledDoc(bench.title));
  return errors;
}
