import type { Door, DoorHttpRequest, DoorMount, OperationRunner } from '../../../kernel/index.ts';
import { McpEndpoint } from './mcp-endpoint.ts';
import { bearerChallenge, RESOURCE_METADATA_PATH, resourceMetadata } from './protected-resource.ts';
import { ToolCatalogue } from './tools.ts';

export const MCP_PATH = '/mcp';

export interface McpDoorSettings {
  maxBodyBytes: number;
  version: string;
  /** The OIDC issuer when auth.kind is oidc: the 401s then point a client at it. */
  oidcIssuer?: string;
}

/**
 * The MCP door: it opens nothing of its own; it answers /mcp on the service's listener (and, in oidc
 * mode, the protected-resource metadata that a 401 points at), so TLS, limits and shutdown grace are
 * the listener's.
 */
export class McpDoor implements Door {
  readonly name = 'mcp';
  private endpoint: McpEndpoint | undefined;

  constructor(
    private readonly runner: OperationRunner,
    private readonly settings: McpDoorSettings,
  ) {}

  /** Doors start once every plugin has contributed its operations: the tools are made from them all, once. */
  async start(): Promise<void> {
    const { maxBodyBytes, version, oidcIssuer } = this.settings;
    const catalogue = new ToolCatalogue(this.runner.list());
    const endpoint = new McpEndpoint({
      runner: this.runner,
      catalogue,
      maxBodyBytes,
      version,
      ...(oidcIssuer ? { challenge: bearerChallenge } : {}),
    });
    await endpoint.start();
    this.endpoint = endpoint;
  }

  /** Nothing of its own to close: calls in flight end with the listener's shutdown grace. */
  async stop(): Promise<void> {}

  mounts(): DoorMount[] {
    const mounts: DoorMount[] = [{ path: MCP_PATH, handle: (request) => this.endpoint!.handle(request) }];
    const issuer = this.settings.oidcIssuer;
    if (issuer)
      mounts.push({ path: RESOURCE_METADATA_PATH, handle: async (request) => serveMetadata(request, issuer) });
    return mounts;
  }
}

function serveMetadata(request: DoorHttpRequest, issuer: string): void {
  const { req, res } = request;
  // The document for /mcp, at the root or at the path-suffixed address RFC 9728 also allows.
  if ((req.method !== 'GET' && req.method !== 'HEAD') || (request.path !== '' && request.path !== MCP_PATH)) {
    res.writeHead(404, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ error: 'NotFound', message: 'no such resource metadata; the MCP server is at /mcp' }));
    return;
  }
  res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'max-age=3600' });
  res.end(req.method === 'HEAD' ? undefined : JSON.stringify(resourceMetadata(request, issuer, MCP_PATH)));
}
