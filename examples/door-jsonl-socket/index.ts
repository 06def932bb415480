import { authenticatorPort, definePlugin, doorPort, KERNEL_API_VERSION, operationRunnerPort } from '../../kernel/index.ts';
import { JsonlSocketDoor } from './jsonl-socket-door.ts';

export default definePlugin({
  id: 'example-door-jsonl-socket',
  apiVersion: KERNEL_API_VERSION,
  provides: doorPort,
  description: 'JSON-lines door on a Unix socket (every operation, same pipeline as HTTP)',
  dependsOn: { authenticator: authenticatorPort, operations: operationRunnerPort },
  config: {
    exampleDoor: { socket: { doc: 'Unix socket path of the JSON-lines door (mode 0600).', format: String, default: 'data/svc.sock', env: 'SVC_EXAMPLE_DOOR_SOCKET' } },
  },
  configSlice: (all: Record<string, any>) => ({ socket: all.exampleDoor.socket as string }),
  create: ({ config, deps, logger }) => new JsonlSocketDoor(config.socket, deps.authenticator, deps.operations, logger),
});
