import Router from '@koa/router';
import Koa, { type Middleware } from 'koa';
import t from 'tap';
import { RouteTable } from '../../kernel/http/route-table.ts';

// The route table must find exactly what @koa/router found for the same templates: it replaces the
// router's regex tests for the operations, and the router still answers everything else.
const TEMPLATES: Array<[string, string]> = [
  ['POST', '/v1/keys'],
  ['GET', '/v1/keys'],
  ['GET', '/v1/keys/:id'],
  ['DELETE', '/v1/keys/:id'],
  ['POST', '/v1/keys/import'],
  ['POST', '/v1/keys/:id/encrypt'],
  ['POST', '/v1/keys/:id/raw-encrypt'],
  ['GET', '/v1/keys/:id/public-key'],
  ['POST', '/v1/agents/:agentId/revoke'],
];
const PATHS = [
  '/v1/keys',
  '/v1/keys/',
  '/V1/Keys',
  '/v1/keys/abc',
  '/v1/keys/abc/',
  '/v1/keys/a%2Fb',
  '/v1/keys/%E0%A4%A',
  '/v1/keys/import',
  '/v1/keys/abc/encrypt',
  '/v1/keys/abc/ENCRYPT',
  '/v1/keys//encrypt',
  '/v1/keys/abc/encrypt/x',
  '/v1/keys/abc/raw-encrypt',
  '/v1/keys/abc/public-key',
  '/v1/agents/agent-1/revoke',
  '/v1/agents//revoke',
  '/v1',
  '/',
  '/v1/keys/abc/decrypt',
  '/v1//keys/abc',
];

/** What answers `method path` through one app: the template and params the handler saw, or nothing. */
async function seen(app: Koa, method: string, path: string): Promise<string> {
  const ctx = app.createContext({ method, url: path, headers: {}, socket: {} } as never, {} as never);
  let answer = 'none';
  await app.middleware.reduceRight<() => Promise<void>>(
    (next, mw) => () => Promise.resolve(mw(ctx, next)),
    async () => {},
  )();
  if (ctx.state.hit) answer = ctx.state.hit;
  return answer;
}

const record =
  (method: string, path: string): Middleware =>
  (ctx) => {
    ctx.state.hit = `${method} ${path} ${JSON.stringify((ctx as { params?: unknown }).params)} ${(ctx as { _matchedRoute?: string })._matchedRoute}`;
  };

t.test(
  'for every template and path, the table finds what @koa/router finds, with the same params and route name',
  async (t) => {
    const viaRouter = new Koa();
    const router = new Router();
    for (const [m, p] of TEMPLATES) router[m.toLowerCase() as 'get'](p, record(m, p));
    viaRouter.use(router.routes());
    const viaTable = new Koa();
    const table = new RouteTable();
    for (const [m, p] of TEMPLATES) table.add(m, p, record(m, p));
    viaTable.use(table.middleware());
    for (const method of ['GET', 'POST', 'DELETE', 'HEAD', 'PUT']) {
      for (const path of PATHS)
        t.equal(await seen(viaTable, method, path), await seen(viaRouter, method, path), `${method} ${path}`);
    }
  },
);

t.test('a request the table does not serve goes on to the next middleware', async (t) => {
  const app = new Koa();
  const table = new RouteTable();
  table.add('POST', '/v1/keys/:id/encrypt', record('POST', '/v1/keys/:id/encrypt'));
  app.use(table.middleware());
  app.use((ctx) => void (ctx.state.hit = 'next'));
  t.equal(await seen(app, 'GET', '/v1/keys/abc/encrypt'), 'next');
  t.equal(await seen(app, 'POST', '/mcp'), 'next');
  t.match(await seen(app, 'POST', '/v1/keys/abc/encrypt'), /^POST \/v1\/keys\/:id\/encrypt \{"id":"abc"\}/);
});
