import { SvcError } from '../../kernel/index.ts';

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'PROTOCOL_CONNECTION_LOST',
  'ER_SERVER_SHUTDOWN',
  'ER_CON_COUNT_ERROR',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08006',
]);

/** True when a driver or pool error means "the database cannot be reached", not "the query is wrong". */
export function isConnectionError(err: unknown): boolean {
  const e = err as { code?: string; name?: string; message?: string };
  if (e?.code && CONNECTION_CODES.has(e.code)) return true;
  if (e?.name === 'KnexTimeoutError') return true;
  return /Connection terminated|connection is closed|Timeout acquiring a connection|Can't add new command when connection is in closed state/i.test(
    e?.message ?? '',
  );
}

/**
 * Runs a database call and turns a lost connection into 503 ServiceUnavailable, so the client knows to
 * retry; the pool reconnects by itself once the database is back.
 */
export async function unlessUnavailable<T>(what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (isConnectionError(err)) throw new SvcError('ServiceUnavailable', `${what} is unreachable; retry later`);
    throw err;
  }
}
