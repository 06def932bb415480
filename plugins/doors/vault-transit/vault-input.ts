import { invalid } from './vault-errors.ts';

/** A request body (or one batch item) as Vault clients send it: a JSON object. */
export type VaultInput = Record<string, unknown>;

/** The most items one batch_input may hold, as the REST API's batches. */
export const MAX_BATCH_ITEMS = 1000;

/** A string field; absent (or null, as clients send unset options) is undefined. */
export function text(input: VaultInput, field: string): string | undefined {
  const value = input[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw invalid(`${field} must be a string`);
  return value;
}

export function requiredText(input: VaultInput, field: string): string {
  const value = text(input, field);
  if (value === undefined || value === '') throw invalid(`missing ${field}`);
  return value;
}

/** A boolean field; Vault's decoder takes "true"/"false" too. */
export function flag(input: VaultInput, field: string): boolean | undefined {
  const value = input[field];
  if (value === undefined || value === null) return undefined;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw invalid(`${field} must be a boolean`);
}

/** A whole number field; Vault's decoder takes one written as a string too. */
export function whole(input: VaultInput, field: string): number | undefined {
  const value = input[field];
  if (value === undefined || value === null || value === '') return undefined;
  const n = typeof value === 'string' && /^-?\d{1,10}$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n)) throw invalid(`${field} must be a whole number`);
  return n;
}

/** A key version field: absent, 0 (Vault's "the latest") or a version. */
export function keyVersion(input: VaultInput, field = 'key_version'): number | undefined {
  const n = whole(input, field);
  if (n === undefined || n === 0) return undefined;
  if (n < 0) throw invalid(`${field} must not be negative`);
  return n;
}

/** The items of `batch_input`, or undefined when the request is a single call. */
export function batchItems(input: VaultInput): VaultInput[] | undefined {
  const items = input.batch_input;
  if (items === undefined || items === null) return undefined;
  if (!Array.isArray(items) || items.length === 0) throw invalid('batch_input must be a non-empty list of objects');
  if (items.length > MAX_BATCH_ITEMS) throw invalid(`batch_input holds at most ${MAX_BATCH_ITEMS} items`);
  if (items.some((item) => typeof item !== 'object' || item === null || Array.isArray(item)))
    throw invalid('every batch_input item must be an object');
  return items as VaultInput[];
}

/** Refuses options the door does not offer, naming why, rather than ignoring what the caller asked for. */
export function refuseOptions(input: VaultInput, reasons: Record<string, string>): void {
  for (const [field, reason] of Object.entries(reasons)) {
    const value = input[field];
    if (value !== undefined && value !== null && value !== false && value !== '' && value !== 'false' && value !== 0)
      throw invalid(`${field} is not offered: ${reason}`);
  }
}
