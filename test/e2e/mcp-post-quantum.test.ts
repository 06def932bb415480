import { createPublicKey, verify } from 'node:crypto';
import t from 'tap';
import { ML_DSA_SETS, PARAMETER_SETS } from '../../kernel/index.ts';
import { ApiClient, b64 } from '../helpers/client.ts';
import { mcpClient, mcpPost, toolsCall } from '../helpers/mcp-client.ts';
import { startTestService } from '../helpers/service.ts';
import { runtimeHasPostQuantum } from '../helpers/post-quantum.ts';

/**
 * ML-DSA over MCP: create_key's input schema (generated from CreateKey's) offers spec.parameterSet with every
 * set, and an MCP client creates an ML-DSA key, signs and verifies with it, audited with door mcp. On Node 20
 * create_key is refused with the REST API's 400 InvalidField naming Node 24. Refusals are read with a raw
 * tools/call: the SDK's Client (1.32) checks an error's structuredContent against the tool's outputSchema and
 * throws instead of answering it (modelcontextprotocol/typescript-sdk#1943).
 */

const has = runtimeHasPostQuantum;
const MESSAGE = b64('release manifest 2026-11-30');

t.test(`an MCP client and ML-DSA keys (${has ? 'this runtime has them' : 'a runtime without them'})`, async (t) => {
  const svc = await startTestService({ SVC_RISK_ENABLED: 'false' });
  t.teardown(() => svc.stop());
  const mcp = await mcpClient(svc.url, { 'X-Svc-User': 'alice' });
  t.teardown(() => mcp.close());
  const rest = new ApiClient(svc.url, { 'X-Svc-User': 'alice' });

  const { tools } = await mcp.listTools();
  const createKey = tools.find((tool) => tool.name === 'create_key')!;
  const spec = (createKey.inputSchema.properties as Record<string, any>).spec;
  t.match(spec.properties.parameterSet, { type: 'string' }, 'create_key offers spec.parameterSet');
  t.same([...spec.properties.parameterSet.enum].sort(), [...PARAMETER_SETS].sort(), 'with every parameter set');
  t.ok(spec.properties.algorithm.enum.includes('ML-DSA'), 'and ML-DSA among the algorithms');
  t.ok(spec.properties.algorithm.enum.includes('SLH-DSA'), 'and SLH-DSA');

  const mlDsa65 = { spec: { name: 'mcp-ml-dsa', algorithm: 'ML-DSA', parameterSet: 'ML-DSA-65' } };
  const refusal = async (tool: string, args: Record<string, unknown>) =>
    (await mcpPost(svc.url, { 'X-Svc-User': 'alice' }, toolsCall(tool, args))).body.result;
  if (!has) {
    const refused = await refusal('create_key', mlDsa65);
    const viaRest = await rest.post('/v1/keys', { spec: { algorithm: 'ML-DSA', parameterSet: 'ML-DSA-65' } });
    t.equal(viaRest.status, 400);
    t.match(refused, { isError: true, structuredContent: { error: 'InvalidField', message: /Node 24/ } });
    t.same(refused.structuredContent, viaRest.body, "create_key answers the REST API's refusal");
    const audit = (await rest.get('/v1/audit?op=Create&limit=100')).body.records;
    t.ok(
      audit.some((r: any) => r.context.door === 'mcp' && r.outcome === 'InvalidField'),
      'the refusal is audited with door mcp',
    );
    return;
  }
  const created = await mcp.tool('create_key', mlDsa65);
  t.notOk(created.isError, created.isError ? JSON.stringify(created.structuredContent) : 'create_key');
  const keyId = created.structuredContent!.id as string;
  t.match(created.structuredContent, {
    state: 'PreActive',
    spec: { algorithm: 'ML-DSA', parameterSet: 'ML-DSA-65', sizeBits: 192 },
  });
  t.notOk((await mcp.tool('activate_key', { keyId })).isError, 'activate_key');
  const signed = await mcp.tool('sign', { keyId, messageBase64: MESSAGE });
  t.notOk(signed.isError, signed.isError ? JSON.stringify(signed.structuredContent) : 'sign');
  t.match(signed.structuredContent, { algorithm: 'ML-DSA-65', keyVersion: 1 });
  const signatureBase64 = signed.structuredContent!.signatureBase64 as string;
  const verified = await mcp.tool('verify', { keyId, messageBase64: MESSAGE, signatureBase64 });
  t.match(verified.structuredContent, { valid: true, keyVersion: 1 }, 'verify');
  const tampered = Buffer.from(signatureBase64, 'base64');
  tampered[0]! ^= 1;
  const refusedSignature = await mcp.tool('verify', {
    keyId,
    messageBase64: MESSAGE,
    signatureBase64: tampered.toString('base64'),
  });
  t.equal(refusedSignature.structuredContent!.valid, false, 'a changed signature is not valid');
  const publicKey = await mcp.tool('get_public_key', { keyId });
  t.match(publicKey.structuredContent, { parameterSet: 'ML-DSA-65', publicKeyPem: /BEGIN PUBLIC KEY/ });
  t.ok(
    verify(
      null,
      Buffer.from(MESSAGE, 'base64'),
      createPublicKey(publicKey.structuredContent!.publicKeyPem as string),
      Buffer.from(signatureBase64, 'base64'),
    ),
    'node:crypto verifies the MCP signature from the public key',
  );
  const digest = await refusal('sign', { keyId, digestBase64: b64(Buffer.alloc(32)) });
  t.match(digest, { isError: true, structuredContent: { error: 'InvalidField', message: /signs the message itself/ } });
  const wrongSet = await refusal('create_key', {
    spec: { name: 'mcp-mixed', algorithm: 'ML-DSA', parameterSet: 'SLH-DSA-SHA2-128s' },
  });
  t.match(wrongSet.structuredContent, { error: 'InvalidField', message: ML_DSA_SETS.join(', ') });
  const located = await mcp.tool('locate_keys', { algorithm: 'ML-DSA' });
  t.same(
    located.structuredContent!.keys.map((k: any) => k.id),
    [keyId],
    'locate_keys by algorithm',
  );
  const trail = (await rest.auditOf(keyId)).filter((r: any) => r.context.door === 'mcp');
  t.same(
    trail.map((r: any) => `${r.operation} ${r.outcome}`),
    [
      'Create Success',
      'Activate Success',
      'Sign Success',
      'Verify Success',
      'Verify InvalidSignature',
      'Get Success',
      'Sign InvalidField',
    ],
    'each call on the key audited with door mcp, the refusal and the invalid signature included',
  );
});
