import type { Middleware } from 'koa';

interface Template {
  /** The route as declared (`/v1/keys/:id/encrypt`): the metrics label, as @koa/router sets it. */
  path: string;
  /** Each segment lower-cased, or undefined where a parameter stands. */
  literals: Array<string | undefined>;
  params: Array<[index: number, name: string]>;
  handle: Middleware;
}

const NO_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;

/** A path parameter as @koa/router hands it over: URL-decoded, or as sent when it does not decode. */
function decoded(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * The operations' routes, matched without a regular expression: by method and number of segments, then
 * segment by segment from the last (the operation's verb, where templates differ most). @koa/router tests
 * every layer's regex on every request, and the operations' templates are many and alike; this finds the
 * one that matches with a few string comparisons. It matches as the router does (case-insensitive, one
 * trailing slash allowed, a parameter is one non-empty segment, URL-decoded) and sets `ctx.params` and
 * `ctx._matchedRoute` like it; a request it does not match goes on to the router, which still knows
 * every route for 404, 405 and the public routes.
 */
export class RouteTable {
  private readonly byMethod = new Map<string, Map<number, Template[]>>();

  add(method: string, path: string, handle: Middleware): void {
    const segments = path.split('/');
    const template: Template = {
      path,
      handle,
      literals: segments.map((s) => (s.startsWith(':') ? undefined : s.toLowerCase())),
      params: segments.flatMap((s, i): Array<[number, string]> => (s.startsWith(':') ? [[i, s.slice(1)]] : [])),
    };
    const upper = method.toUpperCase();
    for (const m of upper === 'GET' ? ['GET', 'HEAD'] : [upper]) {
      let bySize = this.byMethod.get(m);
      if (!bySize) this.byMethod.set(m, (bySize = new Map()));
      const list = bySize.get(segments.length);
      if (list) list.push(template);
      else bySize.set(segments.length, [template]);
    }
  }

  middleware(): Middleware {
    return (ctx, next) => {
      const bySize = this.byMethod.get(ctx.method);
      if (bySize === undefined) return next();
      let path = ctx.path;
      if (path.length > 1 && path.charCodeAt(path.length - 1) === 47) path = path.slice(0, -1);
      const segments = path.split('/');
      const candidates = bySize.get(segments.length);
      if (candidates === undefined) return next();
      for (let t = 0; t < candidates.length; t++) {
        const template = candidates[t]!;
        if (!matches(template, segments)) continue;
        let params = NO_PARAMS;
        if (template.params.length) {
          params = {};
          for (const [i, name] of template.params) params[name] = decoded(segments[i]!);
        }
        const routed = ctx as typeof ctx & { params: Record<string, string>; _matchedRoute: string };
        routed.params = params;
        routed._matchedRoute = template.path;
        return template.handle(ctx, next);
      }
      return next();
    };
  }
}

function matches(template: Template, segments: string[]): boolean {
  const literals = template.literals;
  for (let i = segments.length - 1; i >= 0; i--) {
    const literal = literals[i];
    const segment = segments[i]!;
    if (literal === undefined) {
      if (segment.length === 0) return false;
    } else if (segment !== literal && (segment.length !== literal.length || segment.toLowerCase() !== literal)) {
      return false;
    }
  }
  return true;
}
