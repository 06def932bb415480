import { isAlias } from '../ports/key-aliases.ts';

/** What the pipeline needs of the deployment's aliases. */
export interface AliasResolver {
  resolve(name: string): Promise<string | undefined>;
}

/** Whether one of the input's key fields holds an alias (text starting with `alias/`). */
export function namesAlias(fields: readonly string[], input: unknown): boolean {
  if (typeof input !== 'object' || input === null) return false;
  for (const field of fields) {
    const value = (input as Record<string, unknown>)[field];
    if (typeof value === 'string' && value.startsWith('alias/')) return true;
  }
  return false;
}

/**
 * Replaces `alias/NAME` in the input's key fields by the id of the key it names now, and notes the alias
 * in the call's audit context. An alias that names no key stays as written: the call then fails as on an
 * unknown key id (KeyNotFound, or the policy's refusal), audited under the alias.
 */
export async function resolveAliases(
  fields: readonly string[],
  input: unknown,
  aliases: AliasResolver,
  context: Record<string, string>,
): Promise<void> {
  if (typeof input !== 'object' || input === null) return;
  const named = input as Record<string, unknown>;
  for (const field of fields) {
    const value = named[field];
    if (typeof value !== 'string' || !isAlias(value)) continue;
    context[field === 'id' ? 'alias' : `${field}.alias`] = value;
    const keyId = await aliases.resolve(value);
    if (keyId !== undefined) named[field] = keyId;
  }
}
