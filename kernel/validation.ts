import type { TSchema } from '@sinclair/typebox';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { SvcError } from './errors.ts';

// Shape problems (not an object, missing field, wrong JSON type, extra field) are BadRequest; a field of
// the right type with a bad value is InvalidField.
const SHAPE_KEYWORDS = new Set(['required', 'type', 'additionalProperties']);

const ajv = new Ajv({ allErrors: false, strict: false, coerceTypes: false });

export type Validator = (value: unknown) => void;

function describe(err: ErrorObject): string {
  const at = err.instancePath === '' ? 'request' : err.instancePath.slice(1).replaceAll('/', '.');
  if (err.keyword === 'additionalProperties') return `${at} has unknown field "${String(err.params.additionalProperty)}"`;
  if (err.keyword === 'required') return `${at} is missing required field "${String(err.params.missingProperty)}"`;
  if (err.keyword === 'enum') return `${at} must be one of ${(err.params.allowedValues as unknown[]).join(', ')}`;
  return `${at} ${err.message ?? 'is invalid'}`;
}

/** Compiles a TypeBox schema once, at boot; the returned check throws the catalogue's error. */
export function compileValidator(schema: TSchema): Validator {
  const check: ValidateFunction = ajv.compile(schema);
  return (value) => {
    if (check(value)) return;
    const err = check.errors![0]!;
    throw new SvcError(SHAPE_KEYWORDS.has(err.keyword) ? 'BadRequest' : 'InvalidField', describe(err));
  };
}
