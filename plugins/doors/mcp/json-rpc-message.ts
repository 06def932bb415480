import { JSONRPC_VERSION, RELATED_TASK_META_KEY, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * Whether a parsed value is a JSON-RPC message as the SDK's JSONRPCMessageSchema defines one: a request
 * ({jsonrpc, id, method, params?}), a notification ({jsonrpc, method, params?}), a result
 * ({jsonrpc, id, result}) or an error ({jsonrpc, id?, error: {code, message, data?}}), each with no
 * other member; an id is a string or a safe integer; params and result are objects whose `_meta`, when
 * present, is an object with a string-or-integer progressToken and a related task naming a string
 * taskId. The same answers as the schema (test/plugins/mcp-json-rpc-message.test.ts compares them on
 * hundreds of messages), without the schema's parse: that built a copy of every message and, for
 * the garbage a caller may send, an error object per union branch, on every POST.
 */
export function isJsonRpcMessage(value: unknown): value is JSONRPCMessage {
  if (!isObject(value) || value.jsonrpc !== JSONRPC_VERSION) return false;
  if ('method' in value) {
    if (typeof value.method !== 'string' || !optionalParams(value.params)) return false;
    // A request has an id, a notification none; neither has a member beyond these.
    return 'id' in value ? isRequestId(value.id) && onlyKeys(value, REQUEST_KEYS) : onlyKeys(value, NOTIFICATION_KEYS);
  }
  if ('result' in value)
    return (
      isRequestId(value.id) &&
      isObject(value.result) &&
      optionalMeta(value.result._meta) &&
      onlyKeys(value, RESULT_KEYS)
    );
  if ('error' in value)
    return (!('id' in value) || isRequestId(value.id)) && isError(value.error) && onlyKeys(value, ERROR_KEYS);
  return false;
}

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const NOTIFICATION_KEYS = new Set(['jsonrpc', 'method', 'params']);
const RESULT_KEYS = new Set(['jsonrpc', 'id', 'result']);
const ERROR_KEYS = new Set(['jsonrpc', 'id', 'error']);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A string, or a number that is a safe integer (zod's int()). */
const isRequestId = (v: unknown): boolean => typeof v === 'string' || Number.isSafeInteger(v);

/** Every own member of the message is one its kind may have (the schema's strict objects). */
function onlyKeys(v: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  for (const key of Object.keys(v)) if (!allowed.has(key)) return false;
  return true;
}

const optionalParams = (params: unknown): boolean =>
  params === undefined || (isObject(params) && optionalMeta(params._meta));

function optionalMeta(meta: unknown): boolean {
  if (meta === undefined) return true;
  if (!isObject(meta)) return false;
  const { progressToken } = meta;
  if (progressToken !== undefined && !isRequestId(progressToken)) return false;
  const related = meta[RELATED_TASK_META_KEY];
  return related === undefined || (isObject(related) && typeof related.taskId === 'string');
}

function isError(error: unknown): boolean {
  return isObject(error) && Number.isSafeInteger(error.code) && typeof error.message === 'string';
}
