import t from 'tap';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { isJsonRpcMessage } from '../../plugins/doors/mcp/json-rpc-message.ts';

// The door's own check of a JSON-RPC message must accept exactly what the SDK's schema accepts: every
// combination of the members a message may have (and one it may not), each good and bad in several ways.
const ABSENT = Symbol('absent');
const related = 'io.modelcontextprotocol/related-task';
const choices: Record<string, unknown[]> = {
  jsonrpc: [ABSENT, '2.0', 2],
  id: [ABSENT, -3, '', 1.5, null, 2 ** 53, Number.MAX_SAFE_INTEGER, {}],
  method: [ABSENT, 'tools/call', 5],
  params: [
    ABSENT,
    {},
    [],
    null,
    { name: 'x', arguments: [] },
    { _meta: null },
    { _meta: { progressToken: 1.5 } },
    { _meta: { progressToken: 'a', other: 1 } },
    { _meta: { [related]: { taskId: 1 } } },
    { _meta: { [related]: { taskId: 't', extra: 1 } } },
  ],
  result: [ABSENT, {}, [], 5, { _meta: { progressToken: true } }, { _meta: { progressToken: 7 } }],
  error: [
    ABSENT,
    { code: 1, message: 'm' },
    { code: -32600.5, message: 'm' },
    { code: 1 },
    { code: 1, message: 'm', data: null, extra: 1 },
    [],
  ],
  extra: [ABSENT, 1],
};

function* messages(keys: string[], built: Record<string, unknown> = {}): Generator<Record<string, unknown>> {
  if (keys.length === 0) return yield { ...built };
  const [key, ...rest] = keys;
  for (const value of choices[key!]!) {
    const next = { ...built };
    if (value !== ABSENT) next[key!] = value;
    yield* messages(rest, next);
  }
}

t.test('the same verdict as JSONRPCMessageSchema on every combination', async (t) => {
  let checked = 0;
  let accepted = 0;
  const disagreements: string[] = [];
  for (const message of messages(Object.keys(choices))) {
    // Through JSON, as a POST's body arrives.
    const value = JSON.parse(JSON.stringify(message)) as unknown;
    const expected = JSONRPCMessageSchema.safeParse(value).success;
    if (expected) accepted++;
    if (isJsonRpcMessage(value) !== expected && disagreements.length < 10)
      disagreements.push(`${JSON.stringify(value)}: schema ${expected}`);
    checked++;
  }
  t.same(disagreements, [], `${checked} messages, ${accepted} of them valid`);
  t.ok(accepted >= 20 && accepted < checked / 2, 'both verdicts are represented');
});

t.test('values that are not messages at all, and members inherited or named __proto__', async (t) => {
  const values: unknown[] = [
    null,
    0,
    'x',
    true,
    [],
    [{ jsonrpc: '2.0', method: 'ping' }],
    JSON.parse('{"jsonrpc":"2.0","method":"ping","__proto__":{"id":1}}'),
    JSON.parse('{"jsonrpc":"2.0","id":1,"method":"ping","constructor":1}'),
    Object.create({ jsonrpc: '2.0', method: 'ping' }) as unknown,
  ];
  for (const value of values)
    t.equal(
      isJsonRpcMessage(value),
      JSONRPCMessageSchema.safeParse(value).success,
      JSON.stringify(value) ?? String(value),
    );
});
