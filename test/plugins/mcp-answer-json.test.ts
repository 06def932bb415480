import t from 'tap';
import { CallToolResultSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { answerJson, answersJson, toolAnswer } from '../../plugins/doors/mcp/answer-json.ts';

// A tool answer is written from its body's JSON made once; the text must be exactly what JSON.stringify
// writes for the same answer, so a client sees the same bytes either way.
const envelope = (result: unknown, id: string | number): JSONRPCMessage =>
  ({ result, jsonrpc: '2.0', id }) as JSONRPCMessage;
const bodies: Array<Record<string, unknown>> = [
  { keyId: 'k-1', version: 3, ciphertextBase64: Buffer.alloc(1024, 7).toString('base64') },
  {
    text: 'quotes " and \\ backslashes, \u2028 separators, \u0000 and emoji 🔑',
    nested: { list: [1, null, true, 'x'] },
  },
  {},
];

t.test('a tool answer, success or error, is written exactly as JSON.stringify writes it', async (t) => {
  for (const [n, body] of bodies.entries()) {
    for (const isError of [false, true]) {
      for (const id of [1, 'a"b', 0]) {
        const message = envelope(toolAnswer(body, isError), id);
        t.equal(
          answerJson(message),
          JSON.stringify(message),
          `body ${n}, isError ${isError}, id ${JSON.stringify(id)}`,
        );
      }
    }
  }
});

t.test(
  'tool answers have the shape the SDK checks a tools/call result against: structured and the same JSON as text',
  async (t) => {
    for (const body of bodies) {
      const answer = toolAnswer(body, false);
      t.ok(CallToolResultSchema.safeParse(answer).success);
      t.same(JSON.parse(answer.content[0]!.text), body);
      t.equal(answer.structuredContent, body);
      t.same(toolAnswer(body, true), {
        content: [{ type: 'text', text: JSON.stringify(body) }],
        structuredContent: body,
        isError: true,
      });
    }
  },
);

t.test("anything else, or a tool answer changed since it was made, is JSON.stringify's", async (t) => {
  const changedText = toolAnswer({ a: 1 }, false);
  changedText.content[0]!.text = 'something else';
  const replacedBody = toolAnswer({ a: 1 }, false);
  replacedBody.structuredContent = { b: 2 };
  const extraMember = toolAnswer({ a: 1 }, false);
  extraMember._meta = { note: 'x' };
  const twoContents = toolAnswer({ a: 1 }, false);
  twoContents.content.push({ type: 'text', text: 'more' });
  const messages: JSONRPCMessage[] = [
    envelope(changedText, 1),
    envelope(replacedBody, 1),
    envelope(extraMember, 1),
    envelope(twoContents, 1),
    envelope({ tools: [] }, 2),
    { jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'Method not found' } },
    { ...envelope(toolAnswer({ a: 1 }, false), 4), extra: true } as unknown as JSONRPCMessage,
  ];
  for (const message of messages) t.equal(answerJson(message), JSON.stringify(message));
  t.equal(answersJson(messages), JSON.stringify(messages), 'a batch is a JSON array of them');
  t.equal(answersJson([messages[4]!]), JSON.stringify(messages[4]), 'one answer alone is not an array');
});
