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
export async function mcpClient(
  url: string,
  headers: Record<string, string>,
  name = 'svc-test-client',
): Promise<
  Client & { tool(name: string, args?: Record<string, unknown>, meta?: Record<string, unknown>): Promise<ToolResult> }
> {
  const client = new Client({ name, version: '1.2.3' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } }));
  return Object.assign(client, {
    tool: async (tool: string, args: Record<string, unknown> = {}, meta?: Record<string, unknown>) =>
      (await client.callTool({ name: tool, arguments: args, ...(meta ? { _meta: meta } : {}) })) as ToolResult,
  });
}

/** One raw POST to /mcp, as a client that does not use the SDK (or an attacker) sends it. */
export async function mcpPost(
  url: string,
  headers: Record<string, string>,
  body: string | unknown,
): Promise<{ status: number; headers: Headers; body: any; text: string }> {
  const res = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': '2025-06-18',
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

/** A tools/call request as JSON-RPC. */
export const toolsCall = (name: string, args: unknown, id: number | string = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});
