import cluster from 'node:cluster';

/**
 * The bare Koa endpoint (bare-koa.ts) in BENCH_BARE_WORKERS processes under node:cluster, as the service's
 * server.workers runs: bench/scale.ts's control, which pays what two processes sharing the machine's cores
 * pay with none of the service's code. Logs `listening` with the port once every worker listens.
 */
const WORKERS = Math.max(1, Number(process.env.BENCH_BARE_WORKERS ?? 1));

if (cluster.isPrimary) {
  let listening = 0;
  cluster.on('listening', (_worker, address) => {
    if (++listening === WORKERS) process.stderr.write(`${JSON.stringify({ msg: 'listening', port: address.port })}\n`);
  });
  // Workers inherit stderr: only the primary's line above may say `listening`.
  for (let i = 0; i < WORKERS; i++) cluster.fork({ BENCH_BARE_QUIET: '1' });
  process.on('SIGTERM', () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.kill('SIGTERM');
    process.exit(0);
  });
} else {
  await import('./bare-koa.ts');
}
