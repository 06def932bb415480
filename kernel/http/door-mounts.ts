import type { Context, Middleware } from 'koa';
import { authenticate } from '../auth/authenticate.ts';
import { INTERNAL_ERROR_MESSAGE, SvcError } from '../errors.ts';
import type { Authenticator, CredentialSource } from '../ports/authenticator.ts';
import type { DoorHttpRequest, DoorMount } from '../ports/door.ts';
import type { Logger } from '../ports/logger.ts';

const MOUNT_PATH = /^\/[A-Za-z0-9._~-]+(\/[A-Za-z0-9._~-]+)*$/;

/**
 * Problems with the doors' mount paths (malformed, taken twice, or shadowing the kernel's routes), one sentence each.
 */
export function mountProblems(mounts: Array<{ door: string; mount: DoorMount }>, kernelPaths: string[]): string[] {
  const problems: string[] = [];
  const seen = new Map<string, string>();
  for (const { door, mount } of mounts) {
    if (!MOUNT_PATH.test(mount.path))
      problems.push(
        `door "${door}" mounts "${mount.path}": a mount path is /segment[/segment...] without a trailing slash`,
      );
    const taken = seen.get(mount.path);
    if (taken) problems.push(`doors "${taken}" and "${door}" both mount ${mount.path}`);
    seen.set(mount.path, door);
    const shadowed = kernelPaths.find(
      (p) => p === mount.path || p.startsWith(`${mount.path}/`) || mount.path.startsWith(`${p}/`),
    );
    if (shadowed) problems.push(`door "${door}" mounts ${mount.path}, which overlaps the service's route ${shadowed}`);
  }
  return problems;
}

/** The request's headers as the authenticator reads them. */
class HeaderCredentials implements CredentialSource {
  constructor(private readonly ctx: Context) {}

  header(name: string): string | undefined {
    return this.ctx.get(name) || undefined;
  }
}

class MountedRequest implements DoorHttpRequest {
  readonly req;
  readonly res;
  readonly requestId: string;
  readonly sourceIp: string;

  constructor(
    private readonly ctx: Context,
    private readonly authenticator: Authenticator,
    readonly path: string,
  ) {
    this.req = ctx.req;
    this.res = ctx.res;
    this.requestId = ctx.state.requestId as string;
    this.sourceIp = ctx.req.socket.remoteAddress ?? '';
  }

  authenticate() {
    return authenticate(this.authenticator, new HeaderCredentials(this.ctx));
  }
}

/**
 * Hands requests under a door's mount path to the door, after the listener's request id and error
 * handling. The door writes Node's response itself (Koa then stays out of it); what it throws before
 * writing is answered by the error middleware like any REST error.
 */
export function doorMounts(mounts: DoorMount[], authenticator: Authenticator, logger: Logger): Middleware {
  const prefixed = mounts.map((mount) => ({ mount, prefix: `${mount.path}/` }));
  // Not async: a request for no mount goes on without a promise of this middleware's own.
  return (ctx, next) => {
    const path = ctx.path;
    for (const { mount, prefix } of prefixed)
      if (path === mount.path || path.startsWith(prefix)) return serveMount(ctx, mount, authenticator, logger);
    return next();
  };
}

async function serveMount(ctx: Context, mount: DoorMount, authenticator: Authenticator, logger: Logger): Promise<void> {
  // Measured under the mount path, like a route template: raw paths below it would multiply series.
  (ctx as { _matchedRoute?: string })._matchedRoute = mount.path;
  const request = new MountedRequest(ctx, authenticator, ctx.path.slice(mount.path.length));
  try {
    await mount.handle(request);
  } catch (err) {
    if (!ctx.res.headersSent) throw err;
    logger.error('door mount failed after answering began', {
      requestId: request.requestId,
      path: mount.path,
      error: (err as Error)?.stack ?? String(err),
    });
    ctx.res.destroy();
  }
  if (!ctx.res.headersSent && !ctx.res.writableEnded) throw new SvcError('InternalError', INTERNAL_ERROR_MESSAGE);
  ctx.respond = false;
}
