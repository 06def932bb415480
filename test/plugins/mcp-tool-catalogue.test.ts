import { Type } from '@sinclair/typebox';
import t from 'tap';
import { defineOperation, type AnyOperation } from '../../kernel/index.ts';
import { clientOfSession, clientSessionId } from '../../plugins/doors/mcp/client-session.ts';
import { toolNameOf } from '../../plugins/doors/mcp/tool-names.ts';
import { ToolCatalogue } from '../../plugins/doors/mcp/tools.ts';

const op = (
  id: string,
  attributes: AnyOperation['attributes'] = {},
  input = Type.Object({ id: Type.String(), n: Type.Optional(Type.Integer()) }, { $id: 'x' }),
): AnyOperation =>
  defineOperation({
    id,
    operation: 'Get',
    group: 'Test',
    summary: `${id} summary`,
    input,
    output: Type.Object({ ok: Type.Boolean() }, { $id: 'Out' }),
    attributes,
    resource: () => 'test',
    handle: async () => ({ result: { ok: true } }),
  });

t.test('tool names: the id in snake_case, or the declared toolName; false keeps it off', async (t) => {
  t.equal(toolNameOf(op('CreateKey')), 'create_key');
  t.equal(toolNameOf(op('GetPublicKey')), 'get_public_key');
  t.equal(toolNameOf(op('AdvisorExplain')), 'advisor_explain');
  t.equal(toolNameOf(op('Wrap', { toolName: 'wrap_key' })), 'wrap_key');
  t.equal(toolNameOf(op('IssueAgentToken', { toolName: false })), undefined);
});

t.test(
  'a tool: keyId for the key, schemas as JSON, hints from the declaration; two tools of one name stop the boot',
  async (t) => {
    const catalogue = new ToolCatalogue([
      op('GetThing', { readOnly: true }),
      op('BreakThing', { destructive: true }),
      op('Hidden', { toolName: false }),
    ]);
    t.same(
      catalogue.all().map((x) => x.name),
      ['get_thing', 'break_thing'],
    );
    const get = catalogue.get('get_thing')!;
    t.same(get.listing.inputSchema, {
      type: 'object',
      properties: { keyId: { type: 'string' }, n: { type: 'integer' } },
      required: ['keyId'],
    });
    t.same(
      get.listing.outputSchema,
      { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
      "no $id: a client compiles every tool's schema together",
    );
    t.same(get.listing.annotations, {
      title: 'GetThing summary',
      readOnlyHint: true,
      destructiveHint: false,
      openWorldHint: false,
    });
    t.equal(catalogue.get('break_thing')!.listing.annotations.destructiveHint, true);
    t.equal(get.listing.description, 'GetThing summary', 'the summary when there is no description');
    t.throws(
      () => new ToolCatalogue([op('GetThing'), op('Other', { toolName: 'get_thing' })]),
      /GetThing and Other would both be the MCP tool get_thing/,
    );
  },
);

t.test(
  "an answer of one of several shapes (one item or a batch) names every shape's fields at the top level",
  async (t) => {
    const single = Type.Object({ ciphertextBase64: Type.String(), keyVersion: Type.Integer() });
    const batch = Type.Object({ results: Type.Array(single), keyVersion: Type.String() }, { title: 'Batch' });
    const def = defineOperation({
      id: 'Seal',
      operation: 'Encrypt',
      group: 'Test',
      summary: 'Seal',
      input: Type.Object({ id: Type.String() }),
      output: Type.Union([single, batch]),
      resource: () => 'test',
      handle: async () => ({ result: { results: [], keyVersion: '1' } }),
    });
    const schema = new ToolCatalogue([def]).get('seal')!.listing.outputSchema!;
    t.equal(schema.type, 'object');
    t.same(Object.keys(schema.properties!), ['ciphertextBase64', 'keyVersion', 'results'], "both shapes' fields");
    t.same(
      schema.properties!.keyVersion,
      { anyOf: [{ type: 'integer' }, { type: 'string' }] },
      'a field declared two ways takes either',
    );
    t.same(schema.required, ['keyVersion'], 'required only where every shape requires it');
    t.notOk('anyOf' in schema, 'no anyOf at the top: a model reads the fields from properties');
    t.match(
      schema.description,
      /One of 2 answers.*\{ciphertextBase64, keyVersion\} or Batch \{results, keyVersion\}/,
      'and says which fields come together',
    );
  },
);

t.test('the client name rides in the session id the service makes, bounded and cleaned', async (t) => {
  t.equal(clientOfSession(clientSessionId({ name: 'claude-code', version: '1.0.3' })), 'claude-code/1.0.3');
  t.equal(clientOfSession(clientSessionId({ name: 'bare' })), 'bare');
  t.equal(clientSessionId({ name: 'x'.repeat(200) }), undefined);
  t.equal(clientSessionId({ name: 'a\nb' }), undefined);
  t.equal(
    clientOfSession(`c1.${Buffer.from('evil\u0000name').toString('base64url')}`),
    undefined,
    'a forged id with a control character names none',
  );
  t.equal(clientOfSession('some-other-servers-session'), undefined);
  t.equal(clientOfSession(undefined), undefined);
});
