import { SvcError } from '../../kernel/errors.ts';

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Strict standard base64 (Buffer.from alone accepts anything); a bad value is InvalidField naming the field. */
export function decodeBase64(value: string, field: string): Buffer {
  if (!BASE64.test(value)) throw new SvcError('InvalidField', `${field} is not valid standard base64`);
  return Buffer.from(value, 'base64');
}
