import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** What a tools/call answers, as the SDK's Client hands it back. */
export interface ToolResult {
  isError?: boolean;
  structuredContent?: Record<string, any>;
  content: Array<{ type: string; text?: string }>;
}

/**
 * An MCP client as an agent builder would use it: the SDK's own Client over Streamable HTTP to the
 * service's /mcp, with the REST API's credential headers on every request.
 */
export async function mcpClient(url: string, headers: Record<string, string>, name = 'svc-test-client'): Promise<Client & { tool(name: string, args?: Record<string, unknown>, meta?: Record<string, unknown>): Promise<ToolResult> }> {
  const client = new Client({ name, version: '1.2.3' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } }));
  return Object.assign(client, {
    tool: async (tool: string, args: Record<string, unknown> = {}, meta?: Record<string, unknown>) =>
      (await client.callTool({ name: tool, arguments: args, ...(meta ? { _meta: meta } : {}) })) as ToolResult,
  });
}
