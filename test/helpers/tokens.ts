import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';

export const TEST_SECRET = 'test-secret-that-is-long-enough-for-hs256-0123456789';

/** An HS256 token as an identity provider sharing the secret would mint it. */
export async function mintToken(
  claims: Record<string, unknown>,
  opts: { secret?: string; ttlSeconds?: number; jti?: string | null; iat?: number } = {},
): Promise<string> {
  const now = opts.iat ?? Math.floor(Date.now() / 1000);
  const jwt = new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt(now)
    .setExpirationTime(now + (opts.ttlSeconds ?? 600));
  if (opts.jti !== null) jwt.setJti(opts.jti ?? randomUUID());
  return jwt.sign(new TextEncoder().encode(opts.secret ?? TEST_SECRET));
}

/** An unsigned token (alg none), which every authenticator must refuse. */
export function unsignedToken(claims: Record<string, unknown>): string {
  const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${enc({ alg: 'none', typ: 'JWT' })}.${enc({ ...claims, exp: Math.floor(Date.now() / 1000) + 600 })}.`;
}
