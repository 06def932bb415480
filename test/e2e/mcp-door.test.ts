import t from 'tap';
import { ApiClient, b64 } from '../helpers/client.ts';
import { mcpClient } from '../helpers/mcp-client.ts';
import { startTestService } from '../helpers/service.ts';

t.test(
  'an MCP client creates, activates, encrypts and decrypts; REST decrypts what MCP encrypted; audited with door mcp',
  async (t) => {
    const svc = await startTestService({ SVC_RISK_ENABLED: 'false' });
    t.teardown(() => svc.stop());
    const mcp = await mcpClient(svc.url, { 'X-Svc-User': 'alice', 'X-Svc-Model': 'test-model' });
    t.teardown(() => mcp.close());
    const { tools } = await mcp.listTools();
    t.ok(
      tools.some((tool) => tool.name === 'encrypt'),
      tools.map((x) => x.name).join(','),
    );
    const created = await mcp.tool('create_key', { spec: { name: 'mcp-key', algorithm: 'AES' } });
    t.notOk(created.isError, JSON.stringify(created));
    const keyId = created.structuredContent!.id as string;
    t.notOk((await mcp.tool('activate_key', { keyId })).isError);
    const enc = await mcp.tool('encrypt', { keyId, plaintextBase64: b64('over mcp') }, { 'svc/promptId': 'p-1' });
    t.notOk(enc.isError, JSON.stringify(enc));
    t.same(JSON.parse(enc.content[0]!.text!), enc.structuredContent, 'text holds the same JSON');
    const rest = new ApiClient(svc.url, { 'X-Svc-User': 'alice' });
    const dec = await rest.post(`/v1/keys/${keyId}/decrypt`, {
      ciphertextBase64: enc.structuredContent!.ciphertextBase64,
    });
    t.equal(Buffer.from(dec.body.plaintextBase64, 'base64').toString(), 'over mcp');
    const restEnc = await rest.post(`/v1/keys/${keyId}/encrypt`, { plaintextBase64: b64('over rest') });
    const mcpDec = await mcp.tool('decrypt', { keyId, ciphertextBase64: restEnc.body.ciphertextBase64 });
    t.equal(Buffer.from(mcpDec.structuredContent!.plaintextBase64, 'base64').toString(), 'over rest');
    const records = (await rest.get('/v1/audit?promptId=p-1')).body.records;
    t.equal(records.length, 1);
    t.match(records[0].context, {
      door: 'mcp',
      'agent.model': 'test-model',
      'agent.promptId': 'p-1',
      'mcp.client': 'svc-test-client/1.2.3',
    });
  },
);
