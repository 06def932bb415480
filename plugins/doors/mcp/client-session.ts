import { promptField } from '../../../kernel/index.ts';

/**
 * The MCP client's name and version, across stateless requests. A client names itself only in its
 * initialize request, and the server keeps no sessions, so a later tools/call cannot be tied to it by
 * memory. Instead the initialize answer's Mcp-Session-Id carries the name itself (`c1.` + base64url of
 * "name/version"): a conforming client sends that id back on every request, and the service reads the
 * name from it. It is the client's own claim either way (as clientInfo is), so it is recorded, never
 * trusted: bounded and cleaned like a model name.
 */
const PREFIX = 'c1.';

export const SESSION_HEADER = 'Mcp-Session-Id';

export function clientSessionId(clientInfo: { name?: unknown; version?: unknown } | undefined): string | undefined {
  const name = typeof clientInfo?.name === 'string' ? clientInfo.name : '';
  if (name === '') return undefined;
  const version = typeof clientInfo?.version === 'string' && clientInfo.version !== '' ? `/${clientInfo.version}` : '';
  const label = clientLabel(`${name}${version}`);
  return label === undefined ? undefined : PREFIX + Buffer.from(label, 'utf8').toString('base64url');
}

/** The client named by a session id this service made; anything else (absent, foreign, malformed) names none. */
export function clientOfSession(sessionId: string | undefined): string | undefined {
  if (!sessionId?.startsWith(PREFIX)) return undefined;
  return clientLabel(Buffer.from(sessionId.slice(PREFIX.length), 'base64url').toString('utf8'));
}

function clientLabel(text: string): string | undefined {
  try {
    return promptField(text, 'clientInfo');
  } catch {
    return undefined; // a name too long or with control characters is not recorded rather than refused
  }
}
