import { SvcError } from '../../../kernel/index.ts';

/** A JSON 1.1 request body: AWS's members by name. */
export type AwsInput = Record<string, unknown>;

const refuse = (message: string) => new SvcError('InvalidField', message);

/** A string member; required unless `optional`. */
export function text(input: AwsInput, name: string): string;
export function text(input: AwsInput, name: string, optional: 'optional'): string | undefined;
export function text(input: AwsInput, name: string, optional?: 'optional'): string | undefined {
  const value = input[name];
  if (value === undefined || value === null) {
    if (optional) return undefined;
    throw refuse(`${name} is required`);
  }
  if (typeof value !== 'string') throw refuse(`${name} must be a string`);
  return value;
}

/** An integer member within bounds, or undefined. */
export function integer(input: AwsInput, name: string, min: number, max: number): number | undefined {
  const value = input[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    throw refuse(`${name} must be an integer from ${min} to ${max}`);
  return value;
}

export function bool(input: AwsInput, name: string): boolean | undefined {
  const value = input[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw refuse(`${name} must be true or false`);
  return value;
}

/**
 * A blob member (base64 in JSON 1.1), passed on as the service's base64: the service checks it is
 * base64, in the words every door answers.
 */
export function blob(input: AwsInput, name: string): string;
export function blob(input: AwsInput, name: string, optional: 'optional'): string | undefined;
export function blob(input: AwsInput, name: string, optional?: 'optional'): string | undefined {
  const value = optional ? text(input, name, optional) : text(input, name);
  if (value === '') throw refuse(`${name} must not be empty`);
  return value;
}

/** EncryptionContext: a map of strings. */
export function stringMap(input: AwsInput, name: string): Record<string, string> | undefined {
  const value = input[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw refuse(`${name} must be a map of strings`);
  for (const v of Object.values(value)) if (typeof v !== 'string') throw refuse(`${name} must be a map of strings`);
  return value as Record<string, string>;
}

/** Tags: `[{TagKey, TagValue}]` as the service's map. */
export function tagList(input: AwsInput, name: string): Record<string, string> | undefined {
  const value = input[name];
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw refuse(`${name} must be a list of {TagKey, TagValue}`);
  const tags: Record<string, string> = Object.create(null);
  for (const tag of value) {
    if (typeof tag !== 'object' || tag === null) throw refuse(`${name} must be a list of {TagKey, TagValue}`);
    const key = text(tag as AwsInput, 'TagKey');
    if (key.startsWith('aws:')) throw refuse(`TagKey ${key}: the aws: prefix is reserved`);
    tags[key] = text(tag as AwsInput, 'TagValue');
  }
  return { ...tags };
}

/** A list of strings (TagKeys). */
export function textList(input: AwsInput, name: string): string[] {
  const value = input[name];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string'))
    throw refuse(`${name} must be a list of strings`);
  return value as string[];
}
