import type { IncomingHttpHeaders } from 'node:http';
import { MAX_BATCH_SIZE } from '@modelcontextprotocol/sdk/server/requestBody.js';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import {
  isInitializeRequest,
  SUPPORTED_PROTOCOL_VERSIONS,
  type InitializeRequest,
  type JSONRPCMessage,
  type JSONRPCRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { isJsonRpcMessage } from './json-rpc-message.ts';

/** A refusal of the whole POST, answered as a JSON-RPC error with no id. */
export interface HttpRefusal {
  status: number;
  code: number;
  message: string;
}

const refuse = (status: number, code: number, message: string): { refusal: HttpRefusal } => ({
  refusal: { status, code, message },
});

/** The SDK's isInitializeRequest (a full schema check), for messages whose method is initialize. */
export const isInitialize = (m: unknown): m is InitializeRequest =>
  (m as { method?: unknown } | null)?.method === 'initialize' && isInitializeRequest(m);

/**
 * A message that passed isJsonRpcMessage (JSONRPCMessageSchema's rules) is a request when it has both a method and an
 * id (the other three shapes lack one).
 */
export const isCheckedRequest = (m: JSONRPCMessage): m is JSONRPCRequest => 'method' in m && 'id' in m;

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const v = headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
};

/**
 * The Streamable HTTP rules for a POST whose body is already read, checked in the order and answered with
 * the statuses and messages the SDK's own server transport uses, so a client sees the same answers it would
 * from any SDK server: both JSON and event streams accepted (406), a JSON body (415), at most
 * MAX_BATCH_SIZE messages, each a JSON-RPC message, one initialize alone, and a protocol version header
 * (when sent outside initialize) that this SDK supports.
 */
export function checkedMessages(
  headers: IncomingHttpHeaders,
  body: unknown,
): { messages: JSONRPCMessage[] } | { refusal: HttpRefusal } {
  const accept = header(headers, 'accept');
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) {
    return refuse(406, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream');
  }
  if (!isJsonContentType(header(headers, 'content-type')))
    return refuse(415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
  if (Array.isArray(body) && body.length > MAX_BATCH_SIZE)
    return refuse(400, -32600, `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`);
  const messages: JSONRPCMessage[] = Array.isArray(body) ? body : [body];
  for (const message of messages) {
    if (!isJsonRpcMessage(message)) return refuse(400, -32700, 'Parse error: Invalid JSON-RPC message');
  }
  // isInitialize is a full schema check: it runs only on a message whose method is initialize.
  if (messages.some(isInitialize)) {
    if (messages.length > 1) return refuse(400, -32600, 'Invalid Request: Only one initialization request is allowed');
    return { messages };
  }
  const version = header(headers, 'mcp-protocol-version');
  if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    return refuse(
      400,
      -32000,
      `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`,
    );
  }
  return { messages };
}
