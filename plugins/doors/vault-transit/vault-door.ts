import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  authenticate,
  type Authenticator,
  type CredentialSource,
  type Door,
  type DoorHttpRequest,
  type DoorMount,
  type Logger,
  type OperationRunner,
  parseJsonBody,
  readRawBody,
} from '../../../kernel/index.ts';
import { TRANSIT_ROUTES } from './operations/index.ts';
import { VaultCall } from './vault-call.ts';
import { VaultError, vaultErrorOf } from './vault-errors.ts';
import type { VaultInput } from './vault-input.ts';
import { aliasOf, type VaultRoute } from './vault-route.ts';
import { RouteTable } from './route-table.ts';

export interface VaultDoorSettings {
  mount: string;
  maxBodyBytes: number;
}

export interface VaultDoorDeps {
  runner: OperationRunner;
  authenticator: Authenticator;
  logger: Logger;
}

/**
 * The credential a Vault client sends: X-Vault-Token (or Vault's other form, Authorization: Bearer)
 * carries a svc-kms bearer token, read by the service's authenticator like any other.
 */
class VaultCredentials implements CredentialSource {
  constructor(private readonly req: IncomingMessage) {}

  header(name: string): string | undefined {
    const lower = name.toLowerCase();
    const token = this.req.headers['x-vault-token'];
    if (lower === 'authorization' && typeof token === 'string' && token !== '') return `Bearer ${token}`;
    const value = this.req.headers[lower];
    return typeof value === 'string' ? value : undefined;
  }
}

/**
 * A subset of Vault's transit secrets engine at /v1/<mount>/ on the service's listener: each path runs
 * the service operations it maps to through the one pipeline (audited with `door: vault` and
 * `vault.path`, the route's template), as the principal of the token in X-Vault-Token. A transit key
 * name is the alias alias/NAME; answers are Vault's `{data: ...}` envelope, errors `{errors: [...]}`.
 */
export class VaultTransitDoor implements Door {
  readonly name = 'vault';
  private readonly routes = new RouteTable(TRANSIT_ROUTES);

  constructor(
    private readonly deps: VaultDoorDeps,
    private readonly settings: VaultDoorSettings,
  ) {}

  async start(): Promise<void> {}
  async stop(): Promise<void> {}

  mounts(): DoorMount[] {
    return [{ path: `/v1/${this.settings.mount}`, handle: (request) => this.handle(request) }];
  }

  private async handle(request: DoorHttpRequest): Promise<void> {
    const { req, res } = request;
    let route: VaultRoute | undefined;
    try {
      const principal = await authenticate(this.deps.authenticator, new VaultCredentials(req));
      const url = new URL(req.url ?? '/', 'http://door');
      const found = this.routes.find(req.method ?? 'GET', request.path);
      route = found.route;
      const call = new VaultCall(
        this.deps.runner,
        {
          principal,
          requestId: request.requestId,
          door: this.name,
          context: { 'vault.path': route.path },
          sourceIp: request.sourceIp,
        },
        keyRefOf(found.params.name),
      );
      const body = await this.body(req, route, call);
      const answer = await route.run({ params: found.params, body, query: url.searchParams, call });
      if (answer.data === undefined) {
        res.writeHead(answer.status ?? 204);
        res.end();
      } else reply(res, answer.status ?? 200, envelope(request.requestId, answer.data));
    } catch (err) {
      const error = vaultErrorOf(err, route?.keyPath === true);
      if (error.status >= 500)
        this.deps.logger.error('Vault door call failed', {
          requestId: request.requestId,
          error: (err as Error)?.stack,
        });
      reply(res, error.status, { errors: [error.message] });
    }
  }

  /** The JSON body of a write (GET and DELETE carry none); a malformed one is refused as the route's operation. */
  private async body(req: IncomingMessage, route: VaultRoute, call: VaultCall): Promise<VaultInput> {
    if (route.method !== 'POST') return {};
    const raw = await readRawBody(req, this.settings.maxBodyBytes);
    try {
      const parsed = parseJsonBody(raw.toString('utf8'));
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        throw new VaultError(400, 'the request body must be a JSON object');
      return parsed as VaultInput;
    } catch (err) {
      return call.refuse(route.primary, err);
    }
  }
}

/** The alias a path's key name stands for, when it is a valid one. */
function keyRefOf(name: string | undefined): string | undefined {
  try {
    return name === undefined ? undefined : aliasOf(name);
  } catch {
    return undefined;
  }
}

/** Vault's response envelope; clients read `data`. */
const envelope = (requestId: string, data: Record<string, unknown>) => ({
  request_id: requestId,
  lease_id: '',
  renewable: false,
  lease_duration: 0,
  data,
  wrap_info: null,
  warnings: null,
  auth: null,
  mount_type: 'transit',
});

function reply(res: ServerResponse, status: number, body: unknown): void {
  const bytes = Buffer.from(JSON.stringify(body));
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': bytes.length });
  res.end(bytes);
}
