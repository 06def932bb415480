import {
  authenticatorPort,
  definePlugin,
  doorPort,
  KERNEL_API_VERSION,
  operationRunnerPort,
  packageVersion,
} from '../../../kernel/index.ts';
import { mcpSettings } from './config.ts';
import { McpDoor, type McpDoorSettings } from './mcp-door.ts';

/** The version clients see in initialize's serverInfo: the service's own. */
const VERSION: string = packageVersion(import.meta.url);

export default definePlugin({
  id: 'mcp',
  apiVersion: KERNEL_API_VERSION,
  provides: doorPort,
  description: 'Model Context Protocol at /mcp: every operation a caller may call as a tool, through the one pipeline',
  dependsOn: { runner: operationRunnerPort, authenticator: authenticatorPort },
  settings: mcpSettings,
  configure: (_settings, deployment): McpDoorSettings => ({
    maxBodyBytes: deployment.http.maxBodyBytes,
    version: VERSION,
  }),
  // The issuer whose tokens the deployment's authenticator accepts (an OIDC one), if any: the 401s then point a client
  // at it.
  create: ({ config, deps }) => {
    const issuer = deps.authenticator.issuer;
    return new McpDoor(deps.runner, { ...config, ...(issuer ? { oidcIssuer: issuer } : {}) });
  },
});
