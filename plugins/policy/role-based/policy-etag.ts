import { createHash } from 'node:crypto';
import type { PolicyVersion } from '../../../kernel/index.ts';

/**
 * The ETag of a stored policy version: its number and a hash of what it holds. The number alone would
 * match again after a journal restored from a backup wrote a different version under a number seen before.
 */
export function policyEtag(version: PolicyVersion): string {
  const hash = createHash('sha256')
    .update(`${version.version}\n${version.createdAt}\n${JSON.stringify(version.document)}`)
    .digest('hex')
    .slice(0, 16);
  return `"${version.version}-${hash}"`;
}

/**
 * Whether an If-Match header names `etag`: one of its comma-separated entity tags equals it (strong
 * comparison, RFC 9110 13.1.1: a weak tag never matches). `*` does not match: it would replace the policy
 * without the writer having read it, which is what the precondition is there to prevent.
 */
export function ifMatches(header: string, etag: string): boolean {
  return header
    .split(',')
    .map((tag) => tag.trim())
    .some((tag) => tag === etag);
}
