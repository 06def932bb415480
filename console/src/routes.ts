/**
 * Every API call the console makes, in one table: `call` (api.ts) takes one of these, so no page
 * reaches the API another way, and what the console needs from the policy can be read here. Paths are
 * the service's own route patterns (`:id`), so a test maps each to the operation the service runs
 * for it (test/deploy/compose.test.ts checks that the compose deployment's groups are granted them).
 *
 * `part` is the part of the console a call belongs to, which is also who uses it in a deployment that
 * separates duties: finding and reading keys (everyone who works with keys), managing them (admins),
 * using them (applications' people), agents, access keys (admins: Create, Query and Revoke on
 * `access-key:*`), audit and advisor (admins and auditors), and the policy (whoever administers who may
 * do what: reading it is Query on `policy`, replacing it Administer).
 */
export type ConsolePart =
  | 'find-keys'
  | 'manage-keys'
  | 'use-keys'
  | 'agents'
  | 'access-keys'
  | 'audit'
  | 'advisor'
  | 'policy';

export interface Route {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly path: string;
  readonly part: ConsolePart;
}

const route = (method: Route['method'], path: string, part: ConsolePart): Route => ({ method, path, part });

export const ROUTES = {
  locateKeys: route('GET', '/v1/keys', 'find-keys'),
  getKey: route('GET', '/v1/keys/:id', 'find-keys'),
  getPublicKey: route('GET', '/v1/keys/:id/public-key', 'find-keys'),
  createKey: route('POST', '/v1/keys', 'manage-keys'),
  activateKey: route('POST', '/v1/keys/:id/activate', 'manage-keys'),
  rotateKey: route('POST', '/v1/keys/:id/rotate', 'manage-keys'),
  revokeKey: route('POST', '/v1/keys/:id/revoke', 'manage-keys'),
  compromiseKey: route('POST', '/v1/keys/:id/compromise', 'manage-keys'),
  destroyKey: route('DELETE', '/v1/keys/:id', 'manage-keys'),
  cancelDestroy: route('POST', '/v1/keys/:id/cancel-destroy', 'manage-keys'),
  disableKey: route('POST', '/v1/keys/:id/disable', 'manage-keys'),
  enableKey: route('POST', '/v1/keys/:id/enable', 'manage-keys'),
  tagKey: route('PUT', '/v1/keys/:id/tags', 'manage-keys'),
  untagKey: route('DELETE', '/v1/keys/:id/tags', 'manage-keys'),
  putAlias: route('PUT', '/v1/aliases/:name', 'manage-keys'),
  deleteAlias: route('DELETE', '/v1/aliases/:name', 'manage-keys'),
  encrypt: route('POST', '/v1/keys/:id/encrypt', 'use-keys'),
  decrypt: route('POST', '/v1/keys/:id/decrypt', 'use-keys'),
  sign: route('POST', '/v1/keys/:id/sign', 'use-keys'),
  verify: route('POST', '/v1/keys/:id/verify', 'use-keys'),
  listAgents: route('GET', '/v1/agents', 'agents'),
  issueAgent: route('POST', '/v1/agents/issue', 'agents'),
  revokeAgent: route('POST', '/v1/agents/:agentId/revoke', 'agents'),
  listAccessKeys: route('GET', '/v1/access-keys', 'access-keys'),
  createAccessKey: route('POST', '/v1/access-keys', 'access-keys'),
  deleteAccessKey: route('DELETE', '/v1/access-keys/:accessKeyId', 'access-keys'),
  queryAudit: route('GET', '/v1/audit', 'audit'),
  verifyAudit: route('GET', '/v1/audit/verify', 'audit'),
  advisorScan: route('GET', '/v1/advisor/scan', 'advisor'),
  advisorExplain: route('GET', '/v1/advisor/explain/:agentId', 'advisor'),
  getPolicy: route('GET', '/v1/policy', 'policy'),
  putPolicy: route('PUT', '/v1/policy', 'policy'),
} as const satisfies Record<string, Route>;

/** The path of a route with its `:name` segments filled in (percent-encoded). */
export function pathOf(r: Route, params: Record<string, string> = {}): string {
  return r.path.replace(/:(\w+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${r.method} ${r.path} needs ${name}`);
    return encodeURIComponent(value);
  });
}
