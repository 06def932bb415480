import { type LocatePosition, SvcError } from '../../kernel/index.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * A Locate cursor: where the last page stopped reading, (createdAt, id) of the last key row it read,
 * as base64url text. It grants nothing (every page is filtered and authorized again), so it needs no
 * signature; it is parsed strictly, and anything this service could not have given out is 400.
 */
export function encodeCursor(position: LocatePosition): string {
  return Buffer.from(`1|${position.createdAt}|${position.id}`, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string | undefined): LocatePosition | undefined {
  if (cursor === undefined || cursor === '') return undefined;
  const bad = () =>
    new SvcError('InvalidField', 'cursor is not a nextCursor this service gave out; start again without it');
  if (!BASE64URL.test(cursor)) throw bad();
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  if (Buffer.from(text, 'utf8').toString('base64url') !== cursor) throw bad();
  const [version, createdAt, id, ...rest] = text.split('|');
  if (
    version !== '1' ||
    rest.length > 0 ||
    !createdAt ||
    !id ||
    !ISO.test(createdAt) ||
    Number.isNaN(Date.parse(createdAt)) ||
    !UUID.test(id)
  )
    throw bad();
  return { createdAt, id };
}
