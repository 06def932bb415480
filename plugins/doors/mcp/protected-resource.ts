import type { TLSSocket } from 'node:tls';
import type { DoorHttpRequest } from '../../../kernel/index.ts';

/** Where OAuth protected-resource metadata lives (RFC 9728), below the service's origin. */
export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

// A Host header is the client's own text: only a host[:port] shape is echoed back into a URL.
const HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

/** The origin the client reached (its scheme and Host), the base of the URLs a 401 names. */
export function originOf(request: DoorHttpRequest): string {
  const scheme = (request.req.socket as Partial<TLSSocket>).encrypted ? 'https' : 'http';
  const host = request.req.headers.host ?? '';
  return `${scheme}://${HOST.test(host) ? host : 'localhost'}`;
}

/**
 * The 401's challenge in oidc mode: a standard MCP client follows resource_metadata to the metadata
 * document, and from it to the issuer, to obtain a token for this service.
 */
export function bearerChallenge(request: DoorHttpRequest): string {
  return `Bearer resource_metadata="${originOf(request)}${RESOURCE_METADATA_PATH}"`;
}

/**
 * The protected-resource metadata document (RFC 9728) for /mcp: the resource, the configured OIDC
 * issuer as its authorization server, and bearer tokens in the Authorization header. Public: it names
 * only what the 401 already points at.
 */
export function resourceMetadata(request: DoorHttpRequest, issuer: string, mcpPath: string): Record<string, unknown> {
  return {
    resource: `${originOf(request)}${mcpPath}`,
    authorization_servers: [issuer],
    bearer_methods_supported: ['header'],
  };
}
