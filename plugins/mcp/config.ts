import { defineConfig } from '../../kernel/index.ts';

export const mcpConfig = defineConfig({
  mcp: {
    enabled: {
      doc: 'Serve the Model Context Protocol at /mcp on the HTTP listener (Streamable HTTP, stateless, JSON answers): every operation an agent may call is a tool, with the REST API\'s credentials, policy, risk, rate limits and audit.',
      format: Boolean, default: true, env: 'SVC_MCP_ENABLED',
    },
  },
});
