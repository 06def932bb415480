import { requireCallerText, SvcError } from '../../kernel/index.ts';

/** A key's tag limits, as AWS KMS has them. */
export const MAX_TAGS = 50;
export const MAX_TAG_KEY = 128;
export const MAX_TAG_VALUE = 256;

const codePoints = (text: string) => [...text].length;

/**
 * The characters AWS KMS allows in tags (letters, numbers, spaces, `_ . : / = + - @`): tags move between the
 * two unchanged, and a comma never appears, so `DELETE .../tags?keys=a,b` names every tag key unambiguously.
 */
const TAG_TEXT = /^[\p{L}\p{Z}\p{N}_.:/=+\-@]*$/u;
const TAG_TEXT_RULE = 'may hold only letters, numbers, spaces and _ . : / = + - @';

/** Checks tags a caller sent (400 InvalidField naming the first bad one); `field` names where they came from. */
export function checkTags(tags: Record<string, unknown>, field: string): Record<string, string> {
  const checked: Record<string, string> = {};
  for (const [name, value] of Object.entries(tags)) {
    const length = codePoints(name);
    if (length < 1 || length > MAX_TAG_KEY)
      throw new SvcError(
        'InvalidField',
        `${field}: a tag key must be 1..${MAX_TAG_KEY} characters (one has ${length})`,
      );
    requireCallerText(name, `${field} key`);
    if (!TAG_TEXT.test(name)) throw new SvcError('InvalidField', `${field}: a tag key ${TAG_TEXT_RULE}`);
    if (typeof value !== 'string') throw new SvcError('InvalidField', `${field}.${name} must be a string`);
    if (codePoints(value) > MAX_TAG_VALUE)
      throw new SvcError('InvalidField', `${field}.${name}: a tag value must be at most ${MAX_TAG_VALUE} characters`);
    requireCallerText(value, `${field}.${name}`);
    if (!TAG_TEXT.test(value)) throw new SvcError('InvalidField', `${field}.${name}: a tag value ${TAG_TEXT_RULE}`);
    Object.defineProperty(checked, name, { value, enumerable: true, writable: true, configurable: true });
  }
  if (Object.keys(checked).length > MAX_TAGS)
    throw new SvcError('InvalidField', `${field}: a key has at most ${MAX_TAGS} tags`);
  return checked;
}
