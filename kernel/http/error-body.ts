import { Type } from '@sinclair/typebox';
import { ERROR_CATALOGUE } from '../errors.ts';

export const ErrorBody = Type.Object(
  {
    error: Type.Union(
      Object.keys(ERROR_CATALOGUE).map((code) => Type.Literal(code)),
      { description: 'Error code (docs/errors.md).' },
    ),
    message: Type.String({ description: 'What went wrong; never contains key material, plaintext or tokens.' }),
  },
  { additionalProperties: false, title: 'Error' },
);
