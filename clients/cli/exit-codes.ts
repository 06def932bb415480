import { isSvcApiError } from '../sdk/index.ts';

/** The exit codes scripts can rely on. */
export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  invalidSignature: 3,
  notFound: 4,
  permissionDenied: 5,
} as const;

/** A mistake in how the command was called (a missing input, a bad flag value): exit 2. */
export class UsageError extends Error {}

export function exitCodeFor(err: unknown): number {
  if (err instanceof UsageError) return EXIT.usage;
  if (!isSvcApiError(err)) return EXIT.failure;
  if (err.code === 'KeyNotFound' || err.code === 'NotFound') return EXIT.notFound;
  if (err.code === 'PermissionDenied') return EXIT.permissionDenied;
  return EXIT.failure;
}
