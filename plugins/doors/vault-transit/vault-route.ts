import type { VaultCall } from './vault-call.ts';
import { invalid } from './vault-errors.ts';
import type { VaultInput } from './vault-input.ts';

/** One transit request as a route sees it. */
export interface RouteRequest {
  /** The path's parameters (`name`, `hash`, ...). */
  params: Record<string, string>;
  body: VaultInput;
  query: URLSearchParams;
  call: VaultCall;
}

/** A route's answer: `data` in Vault's response envelope (200), or nothing (204); `status` overrides. */
export interface VaultAnswer {
  data?: Record<string, unknown>;
  status?: number;
}

/** A transit path: `keys/:name/rotate`; a parameter ending in `?` may be left out. */
export interface VaultRoute {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  /** The service operation a refusal of the request's input is audited under. */
  primary: string;
  /** True where the path reads or changes the key itself (a missing key is 404 there, 400 elsewhere). */
  keyPath?: boolean;
  run(request: RouteRequest): Promise<VaultAnswer>;
}

// Vault's key names are \w[\w.-]*; the service's aliases take no dot, so neither does a transit name here.
const KEY_NAME = /^[A-Za-z0-9_-]{1,250}$/;

/** The alias a transit key name stands for. */
export function aliasOf(name: string | undefined): string {
  if (name === undefined || !KEY_NAME.test(name))
    throw invalid('a transit key name here is 1..250 of A-Za-z0-9_- (the alias alias/NAME names the key)');
  return `alias/${name}`;
}
