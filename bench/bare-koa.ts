import Router from '@koa/router';
import Koa from 'koa';
import { koaBody } from 'koa-body';

/**
 * The baseline: Koa, @koa/router and koa-body parsing the same JSON body a KMS call carries and
 * echoing it back as JSON, with nothing else. Every service number is quoted as a ratio of this one.
 */
const app = new Koa();
const router = new Router();
// A JSON echo: the parsed body goes back as the answer, so its response is the size of a 1 KiB encrypt's.
router.post('/echo', koaBody({ jsonLimit: 1048576 }), (ctx) => {
  ctx.body = ctx.request.body;
});
app.use(router.routes());
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stderr.write(`${JSON.stringify({ msg: 'listening', port: (server.address() as { port: number }).port })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
