import { writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import {
  DOOR_CONTRACT_PLUGINS,
  doorContract,
  MALFORMED,
  type DoorAnswer,
  type DoorClient,
} from '../../contracts/door.ts';
import type { AnyOperation } from '../../kernel/index.ts';
import { ToolCatalogue } from '../../plugins/doors/mcp/tools.ts';
import { mcpPost, toolsCall } from '../helpers/mcp-client.ts';
import { startTestService, tempDir } from '../helpers/service.ts';

/** The MCP door as a door client: an operation is called as its tool (the key id as keyId), over raw JSON-RPC. */
function mcpDoorClient(url: string, operations: AnyOperation[]): DoorClient {
  const catalogue = new ToolCatalogue(operations);
  const toolOf = (id: string) => catalogue.all().find((tool) => tool.def.id === id);
  return {
    async call(operationId, input, credential, requestId): Promise<DoorAnswer> {
      const headers = { ...credential, 'X-Request-Id': requestId };
      if (input === MALFORMED) return (await mcpPost(url, headers, '{"jsonrpc": "2.0", "method": ')).body;
      const tool = toolOf(operationId);
      if (!tool) throw new Error(`${operationId} is no MCP tool`);
      const { id, ...rest } = input as Record<string, unknown>;
      const args = tool.keyIdArgument && id !== undefined ? { ...rest, keyId: id } : rest;
      const res = await mcpPost(url, headers, toolsCall(tool.name, args));
      if (res.status !== 200) return res.body;
      const result = res.body.result;
      return result.isError ? result.structuredContent : { result: result.structuredContent };
    },
    async list(credential) {
      const res = await mcpPost(url, credential, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
      return (res.body.result.tools as Array<{ name: string }>).map((tool) => catalogue.get(tool.name)!.def.id);
    },
  };
}

doorContract(t, 'mcp', async () => {
  const dir = tempDir();
  const config = path.join(dir, 'svc.yaml');
  writeFileSync(config, `plugins:\n${DOOR_CONTRACT_PLUGINS.map((p) => `  - ${p}\n`).join('')}`);
  const svc = await startTestService({ SVC_CONFIG_FILE: config }, { dir });
  return {
    restUrl: svc.url,
    doors: svc.kernel.doors,
    door: mcpDoorClient(svc.url, svc.kernel.pipeline.list()),
    stop: () => svc.stop(),
  };
});
