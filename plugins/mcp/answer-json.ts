import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** A tools/call answer: the REST answer, or the REST error, as structured content and as the same JSON in text. */
export interface ToolAnswer {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  structuredContent: Record<string, unknown>;
  isError?: boolean;
}

/**
 * The JSON of each tool answer's body (its structuredContent), kept from when its text was made: the
 * answer carries that same JSON twice (parsed, as structuredContent, and as the text), so serializing
 * the whole answer again would walk the REST answer twice more. Weak, so a body never written costs nothing.
 */
const bodyJson = new WeakMap<object, string>();

export function toolAnswer(body: Record<string, unknown>, isError: boolean): ToolAnswer {
  const json = JSON.stringify(body);
  const answer: ToolAnswer = isError
    ? { content: [{ type: 'text', text: json }], structuredContent: body, isError: true }
    : { content: [{ type: 'text', text: json }], structuredContent: body };
  bodyJson.set(body, json);
  return answer;
}

/**
 * One JSON-RPC answer as JSON text, exactly as JSON.stringify writes it (same keys, same order). A tool
 * answer made by `toolAnswer` and left as it was is written from its body's JSON made once; anything
 * else (initialize, tools/list, errors, or an answer something changed since) is JSON.stringify's.
 */
export function answerJson(message: JSONRPCMessage): string {
  const result = (message as { result?: Partial<ToolAnswer> }).result;
  const body = typeof result === 'object' && result !== null ? result.structuredContent : undefined;
  const json = typeof body === 'object' && body !== null ? bodyJson.get(body) : undefined;
  if (json === undefined || !untouched(result as ToolAnswer, json) || !envelopeKeys(message)) return JSON.stringify(message);
  const { isError } = result as ToolAnswer;
  const text = JSON.stringify(json);
  return `{"result":{"content":[{"type":"text","text":${text}}],"structuredContent":${json}${isError ? ',"isError":true' : ''}},"jsonrpc":"2.0","id":${JSON.stringify((message as { id: unknown }).id)}}`;
}

/** A batch's answers as one JSON array. */
export function answersJson(messages: readonly JSONRPCMessage[]): string {
  return messages.length === 1 ? answerJson(messages[0]!) : `[${messages.map(answerJson).join(',')}]`;
}

/** The answer has the keys `toolAnswer` gives it, in its order, and its one text is its structuredContent's JSON. */
function untouched(answer: ToolAnswer, json: string): boolean {
  const keys = Object.keys(answer);
  const expected = answer.isError === true ? 3 : 2;
  return keys.length === expected && keys[0] === 'content' && keys[1] === 'structuredContent' && Array.isArray(answer.content)
    && answer.content.length === 1 && answer.content[0]!.type === 'text' && answer.content[0]!.text === json;
}

/** The answer's envelope is the SDK's `{result, jsonrpc, id}`, in that order, with nothing else. */
function envelopeKeys(message: JSONRPCMessage): boolean {
  const keys = Object.keys(message);
  return keys.length === 3 && keys[0] === 'result' && keys[1] === 'jsonrpc' && keys[2] === 'id' && (message as { jsonrpc: unknown }).jsonrpc === '2.0';
}
