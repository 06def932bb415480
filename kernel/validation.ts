import type { TSchema } from '@sinclair/typebox';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { SvcError } from './errors.ts';
import { CALLER_TEXT_FORMAT, CALLER_TEXT_RULE, isCallerText } from './model/caller-text.ts';

// Shape problems (not an object, missing field, wrong JSON type, extra field) are BadRequest; a field of
// the right type with a bad value is InvalidField.
const SHAPE_KEYWORDS = new Set(['required', 'type', 'additionalProperties']);

const ajv = new Ajv({ allErrors: false, strict: false, coerceTypes: false });
// Every schema field of caller-chosen text (schemas/caller-text.ts) is held to the one check.
ajv.addFormat(CALLER_TEXT_FORMAT, { type: 'string', validate: isCallerText });

export type Validator = (value: unknown) => void;

function describe(err: ErrorObject): string {
  const at = err.instancePath === '' ? 'request' : err.instancePath.slice(1).replaceAll('/', '.');
  if (err.keyword === 'additionalProperties')
    return `${at} has unknown field "${String(err.params.additionalProperty)}"`;
  if (err.keyword === 'required') return `${at} is missing required field "${String(err.params.missingProperty)}"`;
  if (err.keyword === 'format' && err.params.format === CALLER_TEXT_FORMAT) return `${at} ${CALLER_TEXT_RULE}`;
  if (err.keyword === 'enum') return `${at} must be one of ${(err.params.allowedValues as unknown[]).join(', ')}`;
  return `${at} ${err.message ?? 'is invalid'}`;
}

type ObjectBranch = { properties?: Record<string, unknown>; required?: string[] };

/**
 * For a schema that is one of several object shapes (a call that takes one item or a batch of them),
 * the branch the input means to be: the one declaring most of the input's fields, a required one
 * counting double; the first on a tie. Its first error is the one reported, so a caller reads
 * "items.3 is missing required field ..." instead of "must match a schema in anyOf".
 */
function closestBranch(branches: ObjectBranch[], value: unknown): number {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 0;
  let best = 0;
  let bestScore = -1;
  branches.forEach((branch, i) => {
    let score = 0;
    for (const field of Object.keys(value)) {
      if (!branch.properties || !Object.hasOwn(branch.properties, field)) continue;
      score += branch.required?.includes(field) ? 2 : 1;
    }
    if (score > bestScore) [best, bestScore] = [i, score];
  });
  return best;
}

/** Compiles a TypeBox schema once, at boot; the returned check throws the catalogue's error. */
export function compileValidator(schema: TSchema): Validator {
  const check: ValidateFunction = ajv.compile(schema);
  const branches = Array.isArray(schema.anyOf) ? (schema.anyOf as Array<TSchema & ObjectBranch>) : undefined;
  const branchChecks = branches?.map((branch) => ajv.compile(branch));
  return (value) => {
    if (check(value)) return;
    let err = check.errors![0]!;
    if (branches && branchChecks) {
      const branchCheck = branchChecks[closestBranch(branches, value)]!;
      if (!branchCheck(value)) err = branchCheck.errors![0]!;
    }
    throw new SvcError(SHAPE_KEYWORDS.has(err.keyword) ? 'BadRequest' : 'InvalidField', describe(err));
  };
}
