import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import t from 'tap';
import { b64 } from '../helpers/client.ts';
import { mcpClient, type ToolResult } from '../helpers/mcp-client.ts';
import { startTestService } from '../helpers/service.ts';

/**
 * What a model sees of each tool's answer: tools/list's outputSchema must name the answer's fields at the
 * top level (an anyOf of shapes names none), and every answer, one item's or a batch's, must still
 * validate against it. The SDK's Client checks structuredContent against the listed outputSchema on
 * every tools/call (and fails the call when it does not match); ajv checks it once more, on its own.
 */
t.test("every tool's outputSchema names its fields at the top level; single and batch answers validate", async (t) => {
  const svc = await startTestService({ SVC_RISK_ENABLED: 'false' });
  t.teardown(() => svc.stop());
  const mcp = await mcpClient(svc.url, { 'X-Svc-User': 'alice' });
  t.teardown(() => mcp.close());

  const { tools } = await mcp.listTools();
  for (const tool of tools) {
    const schema = tool.outputSchema as Record<string, unknown> | undefined;
    t.ok(schema, `${tool.name} declares its answer`);
    t.equal(schema?.type, 'object', `${tool.name}: an object`);
    t.ok(
      schema?.properties && Object.keys(schema.properties).length > 0,
      `${tool.name}: its fields are top-level properties`,
    );
    t.same(
      ['anyOf', 'oneOf', 'allOf'].filter((k) => schema && k in schema),
      [],
      `${tool.name}: no combinator hides them`,
    );
  }

  // The tools that take one item or a batch of `items`: both answers, through the SDK's validating client.
  const batchTools = tools
    .filter((tool) => 'items' in (tool.inputSchema.properties ?? {}))
    .map((tool) => tool.name)
    .sort();
  t.same(batchTools, ['decrypt', 'encrypt', 'sign', 'verify'], 'the batch-capable tools');
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats.default(ajv);
  const check = (name: string, answer: ToolResult, shape: string) => {
    t.notOk(answer.isError, `${name} (${shape}): ${JSON.stringify(answer.structuredContent)}`);
    const schema = tools.find((tool) => tool.name === name)!.outputSchema!;
    const valid = ajv.validate(schema, answer.structuredContent);
    t.ok(valid, `${name} (${shape}) validates against its outputSchema${valid ? '' : `: ${ajv.errorsText()}`}`);
    return answer.structuredContent!;
  };
  const properties = (name: string) =>
    Object.keys(tools.find((tool) => tool.name === name)!.outputSchema!.properties ?? {});

  const aes = check(
    'create_key',
    await mcp.tool('create_key', { spec: { name: 'schemas-aes', algorithm: 'AES' } }),
    'single',
  ).id;
  await mcp.tool('activate_key', { keyId: aes });
  const sealed = check(
    'encrypt',
    await mcp.tool('encrypt', { keyId: aes, plaintextBase64: b64('one'), context: { app: 'x' } }),
    'single',
  );
  const batch = check(
    'encrypt',
    await mcp.tool('encrypt', {
      keyId: aes,
      items: [{ plaintextBase64: b64('two') }, { plaintextBase64: 'not base64!' }],
    }),
    'batch',
  );
  t.match(batch.results, [{ ciphertextBase64: String }, { error: 'InvalidField' }], 'a batch with a failed item');
  t.ok(
    ['ciphertextBase64', 'keyVersion', 'algorithm', 'results'].every((f) => properties('encrypt').includes(f)),
    'encrypt names the fields of both answers',
  );
  check(
    'decrypt',
    await mcp.tool('decrypt', { keyId: aes, ciphertextBase64: sealed.ciphertextBase64, context: { app: 'x' } }),
    'single',
  );
  const opened = check(
    'decrypt',
    await mcp.tool('decrypt', {
      keyId: aes,
      items: [{ ciphertextBase64: batch.results[0].ciphertextBase64 }, { ciphertextBase64: sealed.ciphertextBase64 }],
    }),
    'batch',
  );
  t.match(
    opened.results,
    [{ plaintextBase64: b64('two') }, { error: 'DecryptionFailed' }],
    'the second item lacks its context',
  );

  const ed = check(
    'create_key',
    await mcp.tool('create_key', { spec: { name: 'schemas-ed', algorithm: 'EdDSA' } }),
    'single',
  ).id;
  await mcp.tool('activate_key', { keyId: ed });
  const signed = check('sign', await mcp.tool('sign', { keyId: ed, messageBase64: b64('m') }), 'single');
  const signedMany = check(
    'sign',
    await mcp.tool('sign', { keyId: ed, items: [{ messageBase64: b64('a') }, { messageBase64: b64('b') }] }),
    'batch',
  );
  check(
    'verify',
    await mcp.tool('verify', { keyId: ed, messageBase64: b64('m'), signatureBase64: signed.signatureBase64 }),
    'single',
  );
  const items = signedMany.results.map((r: { signatureBase64: string }) => ({
    messageBase64: b64('a'),
    signatureBase64: r.signatureBase64,
  }));
  const verified = check('verify', await mcp.tool('verify', { keyId: ed, items }), 'batch');
  t.match(verified.results, [{ valid: true }, { valid: false }]);
});
