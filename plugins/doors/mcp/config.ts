import { Type } from '@sinclair/typebox';
import { defineSettings } from '../../../kernel/index.ts';

export const mcpSettings = defineSettings(
  Type.Object({
    mcp: Type.Object({
      enabled: Type.Boolean({
        description:
          'Serve the Model Context Protocol at /mcp on the HTTP listener ' +
          '(Streamable HTTP, stateless, JSON answers): every operation an agent ' +
          "may call is a tool, with the REST API's credentials, policy, risk, " +
          'rate limits and audit.',
        default: true,
      }),
    }),
  }),
);
