/**
 * The user's credential, kept in sessionStorage: it lives as long as the tab, is not sent by the browser
 * on its own (no cookie, so no cross-site request can use it) and never appears in a URL.
 */
export type Credential = { kind: 'dev'; user: string; groups: string } | { kind: 'bearer'; token: string };

const STORAGE_KEY = 'svc-kms-console.credential';

export function currentCredential(): Credential | undefined {
  const raw = sessionStorage.getItem(STORAGE_KEY);
  if (!raw) return undefined;
  try {
    const parsed = JSON.parse(raw) as Credential;
    if (parsed.kind === 'dev' && typeof parsed.user === 'string')
      return { kind: 'dev', user: parsed.user, groups: String(parsed.groups ?? '') };
    if (parsed.kind === 'bearer' && typeof parsed.token === 'string') return parsed;
  } catch {
    // A value that is not ours: treat as signed out.
  }
  sessionStorage.removeItem(STORAGE_KEY);
  return undefined;
}

export function saveCredential(credential: Credential): void {
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify(credential));
}

export function signOut(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}

/** The request headers that carry the credential, exactly as an API client sends them. */
export function credentialHeaders(credential: Credential): Record<string, string> {
  if (credential.kind === 'bearer') return { Authorization: `Bearer ${credential.token}` };
  return credential.groups
    ? { 'X-Svc-User': credential.user, 'X-Svc-Groups': credential.groups }
    : { 'X-Svc-User': credential.user };
}

/** A token's payload, read without verifying it (the server verifies): {} when it is not a JWT we can read. */
function claimsOf(token: string): { sub?: unknown; svc_kind?: unknown } {
  try {
    const payload: unknown = JSON.parse(atob(token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/')));
    return typeof payload === 'object' && payload !== null ? payload : {};
  } catch {
    return {};
  }
}

/** Who the console says is signed in; a token's subject is read from its payload for display only. */
export function describe(credential: Credential): string {
  if (credential.kind === 'dev') return `${credential.user} (development header)`;
  const { sub } = claimsOf(credential.token);
  return typeof sub === 'string' ? `${sub} (bearer token)` : 'bearer token';
}

/**
 * The kind of principal the credential names, as the service reads it: the development header names a
 * Human, and a token its svc_kind claim (human when absent). Only to leave out what the service would
 * refuse anyway (enabling a key is a Human's act); the service decides.
 */
export function principalKind(credential: Credential): 'Human' | 'Service' | 'Agent' {
  if (credential.kind === 'dev') return 'Human';
  const kind = claimsOf(credential.token).svc_kind;
  if (kind === 'service') return 'Service';
  if (kind === 'agent') return 'Agent';
  return 'Human';
}
