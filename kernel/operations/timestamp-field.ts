import { SvcError } from '../errors.ts';

// RFC 3339 date-time (seconds required, fraction optional, Z or an offset), or a plain date (midnight UTC).
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|([+-])(\d{2}):(\d{2})))?$/;

const daysIn = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

/**
 * A caller's timestamp (a query's since/until, a token's expiresAt) as milliseconds since the epoch, or
 * undefined when it is not an RFC 3339 date-time or a plain date (YYYY-MM-DD, read as midnight UTC).
 * Date.parse alone is lenient: it reads " 10" as October 2001 and "-5" as May 2001, and rolls
 * 2026-02-30 over into March, so a typo would silently select another window.
 */
export function parseTimestamp(value: string): number | undefined {
  const m = RFC3339.exec(value);
  if (!m) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0', fraction = '', , sign, oh = '0', om = '0'] = m;
  const year = Number(y),
    month = Number(mo),
    day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return undefined;
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59 || Number(oh) > 23 || Number(om) > 59) return undefined;
  const ms = fraction ? Math.floor(Number(`0${fraction}`) * 1000) : 0;
  const offsetMinutes = sign ? (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om)) : 0;
  const at = new Date(0);
  at.setUTCFullYear(year, month - 1, day); // Date.UTC would read years 0-99 as 1900-1999
  at.setUTCHours(Number(h), Number(mi), Number(s), ms);
  return at.getTime() - offsetMinutes * 60_000;
}

/** `value` (absent or empty: undefined) as an ISO string in UTC, or 400 InvalidField naming `field`. */
export function timestampField(value: string | undefined, field: string): string | undefined {
  if (value === undefined || value === '') return undefined;
  const at = parseTimestamp(value);
  if (at === undefined) {
    throw new SvcError(
      'InvalidField',
      `${field} must be an RFC 3339 date-time such as 2026-01-31T12:00:00Z (or a date, 2026-01-31, read as midnight UTC), not ${JSON.stringify(value.slice(0, 40))}`,
    );
  }
  return new Date(at).toISOString();
}
