import { createServer, STATUS_CODES, type Server } from 'node:http';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import Router from '@koa/router';
import Koa from 'koa';
import { SvcError, type ErrorCode } from '../errors.ts';
import type { AnyOperation } from '../operations/operation.ts';
import type { Door, DoorMount } from '../ports/door.ts';
import type { Logger } from '../ports/logger.ts';
import { doorMounts } from './door-mounts.ts';
import { RouteTable } from './route-table.ts';
import { requestIdAndErrors } from './errors-middleware.ts';
import { httpMetrics } from '../observability/http-metrics.ts';
import { operationRoute, type HttpDoorDeps } from './operation-route.ts';
import type { PublicRoute } from './route.ts';
import { listenerTlsOptions, tlsEnabled, type TlsSettings } from './tls.ts';

export interface HttpSettings {
  host: string;
  port: number;
  maxBodyBytes: number;
  shutdownGraceMs: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxConnections: number;
  /** Absent or without files: plain HTTP. */
  tls?: TlsSettings;
}

/** Node's HTTP parser errors, answered as `{error, message}` like every other error. */
function parserError(err: NodeJS.ErrnoException): [number, ErrorCode, string] {
  if (err.code === 'HPE_HEADER_OVERFLOW')
    return [431, 'HeadersTooLarge', 'request headers are larger than the server accepts'];
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return [408, 'RequestTimeout', 'the request did not arrive in time'];
  if (err.code === 'HPE_URI_TOO_LONG') return [414, 'URITooLong', 'the request target is too long'];
  return [400, 'BadRequest', 'the request is not valid HTTP/1.1'];
}

function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, code, message] = parserError(err);
  const body = JSON.stringify({ error: code, message });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * The kernel's own door, `http`: the REST API. A Koa host that routes each operation with an HTTP binding
 * through the HTTP door, the kernel's public routes as they are, and the paths other doors mount on the
 * same listener (`mounts`, checked by `mountProblems` before boot goes on); it listens with the configured
 * limits in `start` and unbinds gracefully in `stop`, in the doors' phases like every other door.
 */
export class HttpHost implements Door {
  readonly name = 'http';
  readonly app = new Koa();
  private server: Server | TlsServer | undefined;
  /** Where it listens once started. */
  address: AddressInfo | undefined;

  constructor(
    operations: AnyOperation[],
    publicRoutes: PublicRoute[],
    door: HttpDoorDeps,
    private readonly settings: HttpSettings,
    private readonly logger: Logger,
    mounts: DoorMount[] = [],
  ) {
    // Operations are found by the route table (string comparisons); the router also knows them, for the
    // answers about routes no method matched (404, 405), and serves the public routes.
    const router = new Router();
    const table = new RouteTable();
    for (const def of operations) {
      if (!def.http) continue;
      const route = operationRoute(def, door);
      table.add(def.http.method, def.http.path, route);
      router[def.http.method.toLowerCase() as 'get' | 'post' | 'delete'](def.http.path, route);
    }
    for (const route of publicRoutes) router.get(route.path, (ctx) => route.handle(ctx));
    this.app.silent = true;
    this.app.use(httpMetrics(door.metrics.registry));
    this.app.use(requestIdAndErrors(logger));
    // Mount paths never take an operation's path (mountProblems), so operations are matched first.
    this.app.use(table.middleware());
    if (mounts.length) this.app.use(doorMounts(mounts, door.authenticator, logger));
    this.app.use(router.routes());
    this.app.use(
      router.allowedMethods({
        throw: true,
        methodNotAllowed: () => new SvcError('MethodNotAllowed', 'this route does not accept that method'),
        notImplemented: () => new SvcError('MethodNotAllowed', 'this route does not accept that method'),
      }),
    );
  }

  async start(): Promise<void> {
    this.address = await this.listen();
  }

  stop(): Promise<void> {
    return this.close();
  }

  async listen(): Promise<AddressInfo> {
    const s = this.settings;
    // Node enforces the header and request timeouts on a sweep every connectionsCheckingInterval
    // (30 s by default); a one-second sweep keeps a 408 close to the configured time.
    const limits = {
      headersTimeout: s.headersTimeoutMs,
      requestTimeout: s.requestTimeoutMs,
      keepAliveTimeout: s.keepAliveTimeoutMs,
      connectionsCheckingInterval: 1000,
    };
    const server =
      s.tls && tlsEnabled(s.tls)
        ? createTlsServer({ ...limits, ...listenerTlsOptions(s.tls) }, this.app.callback())
        : createServer(limits, this.app.callback());
    server.maxConnections = s.maxConnections;
    server.on('clientError', answerClientError);
    server.listen(s.port, s.host);
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
    });
    return server.address() as AddressInfo;
  }

  get protocol(): 'http' | 'https' {
    return tlsEnabled(this.settings.tls) ? 'https' : 'http';
  }

  /**
   * Reads the certificate, key and client CA files again (SIGHUP): new connections get them, open ones
   * keep theirs. A file that cannot be read leaves the current ones in place and throws.
   */
  reloadTls(): boolean {
    const server = this.server;
    const tls = this.settings.tls;
    if (!server || !tls || !tlsEnabled(tls) || !('setSecureContext' in server)) return false;
    server.setSecureContext(listenerTlsOptions(tls));
    return true;
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
