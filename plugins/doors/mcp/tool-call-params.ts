import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

/** What a tools/call names: the tool, its arguments and its `_meta`. */
export interface ToolCallParams {
  name: string;
  arguments: Record<string, unknown>;
  meta: Record<string, unknown> | undefined;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const invalid = (what: string): McpError => new McpError(ErrorCode.InvalidParams, `Invalid params: tools/call ${what}`);

/**
 * The params of a tools/call, checked as the SDK's CallToolRequestParamsSchema checks them (an object,
 * a string name, arguments and _meta objects when present; a `task` is refused by the SDK server before
 * any handler, since this server offers no tasks), read without copying them: the door reads these
 * three fields only, and the operation's input schema checks the arguments themselves. A refusal is
 * JSON-RPC Invalid params (-32602) naming the field.
 */
export function toolCallParams(params: unknown): ToolCallParams {
  if (!isObject(params)) throw invalid('params must be an object');
  const { name, arguments: args, _meta: meta } = params;
  if (typeof name !== 'string') throw invalid('name must be a string');
  if (args !== undefined && !isObject(args)) throw invalid('arguments must be an object');
  if (meta !== undefined && !isObject(meta)) throw invalid('_meta must be an object');
  return { name, arguments: args ?? {}, meta };
}
