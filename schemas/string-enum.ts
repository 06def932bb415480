import { Type, type SchemaOptions } from '@sinclair/typebox';

/**
 * A string from a fixed list, as JSON Schema's `enum`: generated clients get a union of literals, and
 * validation answers `must be one of ...` (InvalidField) for anything else.
 */
export const StringEnum = <const T extends readonly string[]>(values: T, options: SchemaOptions = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
