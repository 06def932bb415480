import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** A tools/call answer: the REST answer, or the REST error, as structured content and as the same JSON in text. */
export interface ToolAnswer {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  structuredContent: Record<string, unknown>;
  isError?: boolean;
}

/**
 * A tool answer that keeps the JSON its text was made from: the answer carries that same JSON twice
 * (parsed, as structuredContent, and as the text), so serializing the whole answer again would walk the
 * REST answer twice more. The JSON and the body are private fields, invisible to JSON.stringify, to
 * Object.keys and to the SDK (a WeakMap from answer to JSON cost about three times as much per call, in
 * the collector's work on its entries).
 */
class MadeToolAnswer implements ToolAnswer {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  structuredContent: Record<string, unknown>;
  declare isError?: boolean;
  readonly #json: string;
  readonly #body: Record<string, unknown>;

  constructor(body: Record<string, unknown>, json: string, isError: boolean) {
    this.content = [{ type: 'text', text: json }];
    this.structuredContent = body;
    if (isError) this.isError = true;
    this.#json = json;
    this.#body = body;
  }

  /**
   * The body's JSON, while the answer is still as it was made: the same body, one text that is that JSON, nothing
   * added.
   */
  static untouchedJson(value: unknown): string | undefined {
    if (!(value instanceof MadeToolAnswer)) return undefined;
    const json = value.#json;
    const { content } = value;
    const keys = Object.keys(value);
    const untouched =
      value.structuredContent === value.#body &&
      keys.length === (value.isError === true ? 3 : 2) &&
      keys[0] === 'content' &&
      keys[1] === 'structuredContent' &&
      Array.isArray(content) &&
      content.length === 1 &&
      content[0]!.type === 'text' &&
      content[0]!.text === json;
    return untouched ? json : undefined;
  }
}

export function toolAnswer(body: Record<string, unknown>, isError: boolean): ToolAnswer {
  return new MadeToolAnswer(body, JSON.stringify(body), isError);
}

/**
 * One JSON-RPC answer as JSON text, exactly as JSON.stringify writes it (same keys, same order). A tool
 * answer made by `toolAnswer` and left as it was is written from its body's JSON made once; anything
 * else (initialize, tools/list, errors, or an answer something changed since) is JSON.stringify's.
 */
export function answerJson(message: JSONRPCMessage): string {
  const { result } = message as { result?: unknown };
  const json = MadeToolAnswer.untouchedJson(result);
  if (json === undefined || !envelopeKeys(message)) return JSON.stringify(message);
  const text = JSON.stringify(json);
  const isError = (result as ToolAnswer).isError === true;
  return `{"result":{"content":[{"type":"text","text":${text}}],"structuredContent":${json}${isError ? ',"isError":true' : ''}},"jsonrpc":"2.0","id":${JSON.stringify((message as { id: unknown }).id)}}`;
}

/** A batch's answers as one JSON array. */
export function answersJson(messages: readonly JSONRPCMessage[]): string {
  return messages.length === 1 ? answerJson(messages[0]!) : `[${messages.map(answerJson).join(',')}]`;
}

/** The answer's envelope is the SDK's `{result, jsonrpc, id}`, in that order, with nothing else. */
function envelopeKeys(message: JSONRPCMessage): boolean {
  const keys = Object.keys(message);
  return (
    keys.length === 3 &&
    keys[0] === 'result' &&
    keys[1] === 'jsonrpc' &&
    keys[2] === 'id' &&
    (message as { jsonrpc: unknown }).jsonrpc === '2.0'
  );
}
