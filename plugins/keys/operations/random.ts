import { randomBytes } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { defineOperation } from '../../../kernel/index.ts';

const RandomBody = Type.Object(
  {
    sizeBytes: Type.Integer({ minimum: 1, maximum: 1024, description: 'how many random bytes, 1..1024' }),
  },
  { additionalProperties: false, title: 'RandomRequest' },
);
const RandomResponse = Type.Object(
  { randomBase64: Type.String({ description: 'the random bytes (standard base64)' }) },
  { title: 'RandomResponse' },
);

/**
 * Random bytes from the service's CSPRNG (AWS's GenerateRandom), for clients without a trusted source of
 * their own. Audited like every call; the bytes are never recorded.
 */
export const randomOperation = defineOperation({
  id: 'GenerateRandom',
  description:
    "Random bytes (1..1024) from the service's cryptographically secure generator, for a client without a " +
    'trusted source of its own. Uses no key.',
  operation: 'Get',
  group: 'Crypto',
  summary: 'Random bytes (1..1024)',
  input: RandomBody,
  output: RandomResponse,
  http: { method: 'POST', path: '/v1/random' },
  resource: () => 'random',
  // Not an MCP tool: a model has no use for raw random bytes it could not keep secret anyway.
  attributes: { readOnly: true, toolName: false },
  handle: async (input) => ({
    result: { randomBase64: randomBytes(input.sizeBytes).toString('base64') },
    facts: { context: { sizeBytes: String(input.sizeBytes) } },
  }),
});
