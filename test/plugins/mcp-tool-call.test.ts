import { Type } from '@sinclair/typebox';
import t from 'tap';
import {
  defineOperation,
  SvcError,
  type AnyOperation,
  type Caller,
  type OperationRunner,
  type Principal,
} from '../../kernel/index.ts';
import { callTool, type CallOrigin } from '../../plugins/doors/mcp/tool-call.ts';
import { ToolCatalogue } from '../../plugins/doors/mcp/tools.ts';

const encrypt: AnyOperation = defineOperation({
  id: 'Encrypt',
  operation: 'Encrypt',
  group: 'Crypto',
  summary: 'encrypt',
  input: Type.Object({ id: Type.String(), plaintextBase64: Type.String() }),
  output: Type.Object({ ciphertextBase64: Type.String() }),
  resource: () => 'key',
  handle: async () => ({ result: { ciphertextBase64: 'x' } }),
});
const tool = new ToolCatalogue([encrypt]).get('encrypt')!;
const alice: Principal = { kind: 'Human', subject: 'alice', groups: [] } as unknown as Principal;
const origin: CallOrigin = {
  principal: alice,
  requestId: 'r-1',
  sourceIp: '10.0.0.1',
  headerContext: { 'agent.model': 'from-header', 'agent.promptId': 'header-prompt' },
  client: 'claude-code/1.0',
};

/** A runner that records what the door gave it and answers what the test says. */
function fakeRunner(
  answer: (input: unknown, rejected?: SvcError) => unknown,
): OperationRunner & { calls: Array<{ id: string; input: unknown; caller: Caller; rejected?: SvcError }> } {
  const calls: Array<{ id: string; input: unknown; caller: Caller; rejected?: SvcError }> = [];
  return {
    calls,
    run: async (id, input, caller, rejected) => {
      calls.push({ id, input, caller, rejected });
      return answer(input, rejected);
    },
    list: () => [encrypt],
    permitted: () => [encrypt],
  };
}

t.test(
  'a call: keyId is the input id, door mcp, _meta wins over headers, the ' +
    'client is named; the answer is structured and text',
  async (t) => {
    const runner = fakeRunner(() => ({ ciphertextBase64: 'c' }));
    const answer = await callTool(
      runner,
      tool,
      { keyId: 'k-1', plaintextBase64: 'aGk=' },
      { 'svc/promptId': 'meta-prompt' },
      origin,
    );
    t.same(runner.calls[0], {
      id: 'Encrypt',
      input: { id: 'k-1', plaintextBase64: 'aGk=' },
      rejected: undefined,
      caller: {
        principal: alice,
        requestId: 'r-1',
        door: 'mcp',
        sourceIp: '10.0.0.1',
        context: { 'agent.model': 'from-header', 'agent.promptId': 'meta-prompt', 'mcp.client': 'claude-code/1.0' },
      },
    });
    t.same(answer, {
      content: [{ type: 'text', text: '{"ciphertextBase64":"c"}' }],
      structuredContent: { ciphertextBase64: 'c' },
    });
  },
);

t.test(
  'refusals: the REST code and message; anything else is the REST 500 message, never the inner error',
  async (t) => {
    const refused = await callTool(
      fakeRunner(() => {
        throw new SvcError('PermissionDenied', 'alice may not Encrypt');
      }),
      tool,
      { keyId: 'k' },
      undefined,
      origin,
    );
    t.same(refused, {
      content: [{ type: 'text', text: '{"error":"PermissionDenied","message":"alice may not Encrypt"}' }],
      structuredContent: { error: 'PermissionDenied', message: 'alice may not Encrypt' },
      isError: true,
    });
    const crashed = await callTool(
      fakeRunner(() => {
        throw new Error('connection string postgres://user:secret@db');
      }),
      tool,
      { keyId: 'k' },
      undefined,
      origin,
    );
    t.same(crashed.structuredContent, {
      error: 'InternalError',
      message: 'internal error; the service log has details under this request id',
    });
    t.notMatch(JSON.stringify(crashed), /secret/);
  },
);

t.test('a refused _meta value or an id argument goes to the pipeline as its rejection, to be audited', async (t) => {
  const runner = fakeRunner((_input, rejected) => {
    throw rejected;
  });
  const meta = await callTool(runner, tool, { keyId: 'k' }, { 'svc/model': 'a\u0000b' }, origin);
  t.match(runner.calls[0], {
    input: { id: 'k' },
    rejected: {
      code: 'InvalidField',
      message:
        '_meta svc/model must not contain control, line or paragraph separator, bidirectional or zero-width characters',
    },
  });
  t.match(meta, { isError: true, structuredContent: { error: 'InvalidField' } });
  await callTool(runner, tool, { id: 'k' }, undefined, origin);
  t.match(runner.calls[1], {
    input: undefined,
    rejected: { code: 'BadRequest', message: 'encrypt takes the key as keyId, not id' },
  });
});
