import type { AnyOperation } from '../../../kernel/index.ts';

/**
 * The tool an operation is offered as: its declared `toolName` when it has one, otherwise its id in
 * snake_case (CreateKey -> create_key, GetPublicKey -> get_public_key). `toolName: false` keeps an
 * operation off the agent door (an answer holding a credential, or operator maintenance).
 */
export function toolNameOf(def: AnyOperation): string | undefined {
  const declared = def.attributes?.toolName;
  if (declared === false) return undefined;
  if (typeof declared === 'string') return declared;
  return def.id
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
}
