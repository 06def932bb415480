import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import Router from '@koa/router';
import Koa from 'koa';
import { SvcError } from '../errors.ts';
import type { Logger } from '../ports/logger.ts';
import { jsonBody } from './body.ts';
import { requestIdAndErrors } from './errors-middleware.ts';
import { guardRoute, type GuardDeps } from './guard.ts';
import type { RouteDef } from './route.ts';

export interface HttpSettings {
  host: string;
  port: number;
  maxBodyBytes: number;
  shutdownGraceMs: number;
}

/** The Koa host: mounts every route of the table as its fixed chain, listens, and unbinds gracefully. */
export class HttpHost {
  readonly app = new Koa();
  private server: Server | undefined;

  constructor(
    routes: RouteDef[],
    guardDeps: GuardDeps,
    private readonly settings: HttpSettings,
    private readonly logger: Logger,
  ) {
    const router = new Router();
    const body = jsonBody(settings.maxBodyBytes);
    for (const route of routes) {
      const method = route.method.toLowerCase() as 'get' | 'post' | 'delete';
      if (route.kind === 'public') router[method](route.path, (ctx) => route.handle(ctx));
      else if (route.body) router[method](route.path, body, guardRoute(route, guardDeps));
      else router[method](route.path, guardRoute(route, guardDeps));
    }
    this.app.silent = true;
    this.app.use(requestIdAndErrors(logger));
    this.app.use(router.routes());
    this.app.use(
      router.allowedMethods({
        throw: true,
        methodNotAllowed: () => new SvcError('MethodNotAllowed', 'this route does not accept that method'),
        notImplemented: () => new SvcError('MethodNotAllowed', 'this route does not accept that method'),
      }),
    );
  }

  async listen(): Promise<AddressInfo> {
    const server = this.app.listen(this.settings.port, this.settings.host);
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
    });
    server.keepAliveTimeout = 65_000;
    return server.address() as AddressInfo;
  }

  /** Stops accepting, lets in-flight requests finish within the grace period, then cuts the rest. */
  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const grace = setTimeout(() => {
      this.logger.warn('shutdown grace period over; closing remaining connections');
      server.closeAllConnections();
    }, this.settings.shutdownGraceMs);
    await closed;
    clearTimeout(grace);
  }
}
