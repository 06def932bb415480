import { definePlugin, doorPort, KERNEL_API_VERSION, operationRunnerPort, packageVersion, type ConfigValues } from '../../kernel/index.ts';
import { mcpConfig } from './config.ts';
import { McpDoor, type McpDoorSettings } from './mcp-door.ts';

/** The version clients see in initialize's serverInfo: the service's own. */
const VERSION: string = packageVersion(import.meta.url);

interface WholeConfig {
  http: { maxBodyBytes: number };
  auth: { kind: string; oidc?: { issuerUri?: string } };
}

export default definePlugin({
  id: 'mcp',
  apiVersion: KERNEL_API_VERSION,
  provides: doorPort,
  description: 'Model Context Protocol at /mcp: every operation a caller may call as a tool, through the one pipeline',
  dependsOn: { runner: operationRunnerPort },
  config: mcpConfig,
  configSlice: (all: ConfigValues<typeof mcpConfig> & WholeConfig): McpDoorSettings => ({
    maxBodyBytes: all.http.maxBodyBytes,
    version: VERSION,
    ...(all.auth.kind === 'oidc' && all.auth.oidc?.issuerUri ? { oidcIssuer: all.auth.oidc.issuerUri } : {}),
  }),
  create: ({ config, deps }) => new McpDoor(deps.runner, config),
});
