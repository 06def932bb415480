import { createHash } from 'node:crypto';
import Router from '@koa/router';
import Koa from 'koa';
import { koaBody } from 'koa-body';

/**
 * The baseline: Koa, @koa/router and koa-body parsing the same JSON body a KMS call carries and
 * echoing it back as JSON, with nothing else. Every service number is quoted as a ratio of this one.
 *
 * BENCH_BARE_SPIN_US makes each request also use that many microseconds of CPU time (measured with
 * getrusage, so a slow spell of the machine does not shorten it): a control that costs what the service
 * costs per request, with none of the service's code, for loads whose behaviour depends on how busy the
 * server is (bench/open-loop.ts). BENCH_BARE_WORK_ROUNDS makes it do that many rounds of a JSON copy of the body
 * and a SHA-256 of its plaintext instead: a fixed amount of work, whose CPU time grows where the machine runs code
 * slower (caches emptied by other processes between requests), which a spin to a CPU time cannot show
 * (bench/workers-fixed-rate.ts).
 */
const SPIN_US = Number(process.env.BENCH_BARE_SPIN_US ?? 0);
const WORK_ROUNDS = Number(process.env.BENCH_BARE_WORK_ROUNDS ?? 0);
const cpuMicros = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

const app = new Koa();
const router = new Router();
// A JSON echo: the parsed body goes back as the answer, so its response is the size of a 1 KiB encrypt's.
router.post('/echo', koaBody({ jsonLimit: 1048576 }), (ctx) => {
  if (SPIN_US > 0) {
    const until = cpuMicros() + SPIN_US;
    while (cpuMicros() < until);
  }
  for (let i = 0; i < WORK_ROUNDS; i++) {
    const copy = JSON.parse(JSON.stringify(ctx.request.body)) as { plaintextBase64?: unknown };
    createHash('sha256').update(String(copy.plaintextBase64)).digest('base64');
  }
  ctx.body = ctx.request.body;
});
app.use(router.routes());
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  // Under bare-koa-cluster.ts the primary says when every worker listens.
  if (process.env.BENCH_BARE_QUIET) return;
  process.stderr.write(`${JSON.stringify({ msg: 'listening', port: (server.address() as { port: number }).port })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
