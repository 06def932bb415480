import { VaultError } from './vault-errors.ts';
import type { VaultRoute } from './vault-route.ts';

interface Compiled {
  route: VaultRoute;
  segments: string[];
}

/** The transit routes by method and path; Vault's clients write with PUT as often as with POST. */
export class RouteTable {
  private readonly compiled: Compiled[] = [];

  constructor(routes: VaultRoute[]) {
    for (const route of routes) {
      const segments = route.path.split('/');
      this.compiled.push({ route, segments: segments.map((s) => s.replace(/\?$/, '')) });
      // A trailing optional parameter (`sign/:name/:hash?`) is a second route without it.
      if (segments.at(-1)!.endsWith('?')) this.compiled.push({ route, segments: segments.slice(0, -1) });
    }
  }

  /** The route and its parameters for a path below the mount (`/keys/k1`); 404 or 405 as Vault answers. */
  find(method: string, path: string): { route: VaultRoute; params: Record<string, string> } {
    const wanted = method === 'PUT' ? 'POST' : method;
    const parts = path.replace(/^\/+|\/+$/g, '').split('/');
    let allowed = false;
    for (const { route, segments } of this.compiled) {
      const params = match(segments, parts);
      if (!params) continue;
      if (route.method === wanted) return { route, params };
      allowed = true;
    }
    if (allowed) throw new VaultError(405, `${method} is not a method of this path`);
    throw new VaultError(404, `unsupported path: the transit door answers ${TRANSIT_PATHS}`);
  }
}

const TRANSIT_PATHS =
  'keys, keys/NAME, keys/NAME/{rotate,config,trim}, {encrypt,decrypt,rewrap}/NAME, datakey/{plaintext,wrapped}/NAME, ' +
  '{sign,verify,hmac}/NAME[/ALGORITHM], export/TYPE/NAME[/VERSION] and random[/BYTES]';

function match(segments: string[], parts: string[]): Record<string, string> | undefined {
  if (segments.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    let part: string;
    try {
      part = decodeURIComponent(parts[i]!);
    } catch {
      return undefined;
    }
    if (segment.startsWith(':')) {
      if (part === '') return undefined;
      params[segment.slice(1)] = part;
    } else if (segment !== part) return undefined;
  }
  return params;
}
