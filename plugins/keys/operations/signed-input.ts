import { SvcError } from '../../../kernel/index.ts';
import { decodeBase64 } from '../base64.ts';
import type { SignedData } from '../crypto/digest-signatures.ts';

/**
 * The message or the digest a sign or verify body (or a batch's item, `at` = `items.3`) carries. Both
 * fields are optional in the schema, so that either can be sent; exactly one must be.
 */
export function signedDataOf(input: { messageBase64?: string; digestBase64?: string }, at?: string): SignedData {
  const { messageBase64, digestBase64 } = input;
  const prefix = at === undefined ? '' : `${at}.`;
  if ((messageBase64 === undefined) === (digestBase64 === undefined))
    throw new SvcError(
      'InvalidField',
      `${at === undefined ? '' : `${at}: `}exactly one of messageBase64 and digestBase64 is required`,
    );
  return messageBase64 !== undefined
    ? { kind: 'message', bytes: decodeBase64(messageBase64, `${prefix}messageBase64`) }
    : { kind: 'digest', bytes: decodeBase64(digestBase64!, `${prefix}digestBase64`) };
}

/**
 * Audit context naming what was signed: `input: digest` for a digest (never its bytes, as a message's
 * bytes are never written either); a message adds nothing, so its records read as before.
 */
export const inputContext = (data: SignedData): Record<string, string> =>
  data.kind === 'digest' ? { input: 'digest' } : {};
