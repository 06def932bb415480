/** What bench/scale.ts measured in one configuration (the mean of its runs). */
export interface ScaleRow {
  store: 'postgresql' | 'sqlite' | 'control';
  /** Workers of each node (server.workers). */
  workers: number;
  /** Separate nodes loaded side by side, each with its own files or database and its share of the connections. */
  nodes: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  serverCores: number;
  generatorCores: number;
  machineCores: number;
}

export interface ScaleRun {
  rows: ScaleRow[];
  cores: number;
  maxWorkers: number;
  connections: number;
  seconds: number;
  warmupSeconds: number;
  loadBefore: number;
  loadAfter: number;
}

/** Server CPU (every process of every node) per request answered, in microseconds. */
export const cpuPerRequest = (r: ScaleRow) => (r.serverCores / r.rps) * 1e6;
/** The generator's CPU per request: the same work whatever the server, so it shows how much the machine slowed. */
const generatorPerRequest = (r: ScaleRow) => (r.generatorCores / r.rps) * 1e6;

const processes = (r: ScaleRow) => r.workers * r.nodes;

function limit(r: ScaleRow, cores: number): string {
  const ours = r.serverCores + r.generatorCores;
  const others = Math.max(0, r.machineCores - ours);
  if (r.generatorCores >= 0.9) return 'the generator (one thread, a whole core)';
  if (r.machineCores >= cores * 0.9)
    return others >= 0.25
      ? `the machine: all ${cores} cores busy, ${others.toFixed(1)} of them with other processes`
      : `the machine: server and generator use ${ours.toFixed(1)} of ${cores} cores`;
  return 'the node';
}

/**
 * How the control and the separate nodes read the stores' rows: the control (bare Koa under node:cluster) is what N
 * processes pay with none of the service's code; N separate one-worker nodes are what N processes of the service pay
 * with nothing shared between them (no cluster, their own files or database). What N workers pay beyond the separate
 * nodes is what the workers of one node share.
 */
function reading(run: ScaleRun): string[] {
  const { rows, maxWorkers: top } = run;
  if (top < 2) return [];
  const find = (store: string, workers: number, nodes: number) =>
    rows.find((r) => r.store === store && r.workers === workers && r.nodes === nodes);
  const ratio = (a: ScaleRow | undefined, b: ScaleRow | undefined) =>
    a && b ? cpuPerRequest(b) / cpuPerRequest(a) : Number.NaN;
  const control = ratio(find('control', 1, 1), find('control', top, 1));
  const stores = [...new Set(rows.map((r) => r.store))].filter((s) => s !== 'control');
  const lines = [
    `The control (bare Koa under node:cluster, the same ${run.connections} connections) pays ${control.toFixed(2)}x its one-process CPU per request with ${top} processes:`,
    'what processes that share these cores with each other and the generator pay with none of the service in them.',
  ];
  for (const store of stores) {
    const one = find(store, 1, 1);
    const workers = ratio(one, find(store, top, 1));
    const nodes = ratio(one, find(store, 1, top));
    if (Number.isNaN(nodes)) continue;
    lines.push(
      `${store}: ${top} workers of one node pay ${workers.toFixed(2)}x one worker's CPU per request, and ${top} separate one-worker nodes ` +
        `(no cluster, their own ${store === 'sqlite' ? 'files' : 'databases'}, the same connections between them) pay ${nodes.toFixed(2)}x: ` +
        `what the workers share costs ${(workers / nodes).toFixed(2)}x, the rest is what ${top} processes of the service cost on these cores.`,
    );
  }
  return [...lines, ''];
}

/** docs/benchmarks-scale.md for one run. */
export function scaleDoc(run: ScaleRun): string {
  const { rows, cores } = run;
  const one = (r: ScaleRow) => rows.find((x) => x.store === r.store && x.workers === 1 && x.nodes === 1)!;
  const label = (r: ScaleRow) => (r.nodes === 1 ? String(r.workers) : `${r.nodes} nodes of ${r.workers}`);
  return [
    '# Benchmarks: one node, every core (server.workers)',
    '',
    '<!-- Written by `npm run bench:scale`. -->',
    '',
    'Each configuration runs twice, in the order 1, 2, ... N workers, N separate nodes twice, then N ... 1 workers, and its row is the mean of the two.',
    '',
    `Run on ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cores} usable cores; load average ${run.loadBefore.toFixed(1)} before, ${run.loadAfter.toFixed(1)} after`,
    `(others' work on the machine counts against both server and generator). Encrypt 1 KiB with one AES key, autocannon ${run.connections}`,
    `connections for ${run.seconds} s after a ${run.warmupSeconds} s warm-up (long enough for each process's young generation to reach its full size), journal and audit on a private PostgreSQL (fsync off) or on SQLite (WAL, synchronous FULL)`,
    'shared by the workers; server CPU per request is the goal that a 2-core machine can show (a second worker must not raise it',
    'by more than 15%). "N nodes of 1" are N services of one worker each, started side by side with their own SQLite files',
    "or PostgreSQL databases, each loaded with its share of the connections at the same time; their rows' latencies are the",
    'larger of the nodes\'. The generator runs in the bench process on the same machine, unpinned; "cores" are CPU seconds per',
    "second of the server (every process of every node), of the generator, and of the whole machine (/proc/stat: everyone's,",
    'so other processes show as the difference). The generator does the same work for every request whatever the server,',
    'so its CPU per request is a control inside each row: where it grows too, the machine slowed everything on it.',
    '',
    '| store | workers | req/s | vs 1 worker | added per process (x one worker) | server CPU µs a request | vs 1 worker | generator CPU µs a request | vs 1 worker | p50 ms | p99 ms | errors | server cores | generator cores | machine cores busy | limit |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.store} | ${label(r)} | ${r.rps.toFixed(0)} | ${(r.rps / one(r).rps).toFixed(2)} | ${processes(r) === 1 ? '' : ((r.rps - one(r).rps) / (processes(r) - 1) / one(r).rps).toFixed(2)} | ${cpuPerRequest(r).toFixed(0)} | ${(cpuPerRequest(r) / cpuPerRequest(one(r))).toFixed(2)} | ${generatorPerRequest(r).toFixed(0)} | ${(generatorPerRequest(r) / generatorPerRequest(one(r))).toFixed(2)} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.serverCores.toFixed(2)} | ${r.generatorCores.toFixed(2)} | ${r.machineCores.toFixed(2)} | ${limit(r, cores)} |`,
    ),
    '',
    ...reading(run),
    'Reading the table: a worker is one Node process with its own event loop, so while the node is the limit each added',
    "worker should add close to one worker's throughput (the goal is at least 0.8 of it per added core). Where the",
    '"limit" column names the generator or the machine, the row measures those instead: on a machine with as many cores',
    'as workers, the generator takes a core the workers need. Run the generator on another machine (or on more cores than',
    'the node uses) to measure the node alone.',
    '',
    ...(rows.some((r) => r.machineCores - r.serverCores - r.generatorCores >= 0.25)
      ? [
          '**This run measured a shared machine, not the node**: other processes kept the cores busy (the "machine cores busy"',
          'column against server plus generator), so the server got a fraction of a core whatever its worker count, and the',
          'rows say nothing about how the node scales. Re-run it on a quiet machine with more cores than workers.',
          '',
        ]
      : []),
    ...(cores <= 2
      ? [
          `With ${cores} cores, the generator and the node share them: the last row's workers have fewer cores than workers once the generator runs, so it cannot show the per-core growth; the rows with fewer workers than cores can.`,
          '',
        ]
      : []),
  ].join('\n');
}
