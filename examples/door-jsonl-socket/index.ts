// A published plugin would import these from the svc-kms package; the example sits in the repository.
import {
  authenticatorPort,
  definePlugin,
  doorPort,
  KERNEL_API_VERSION,
  operationRunnerPort,
} from '../../kernel/index.ts';
import { JsonlSocketDoor } from './jsonl-socket-door.ts';
import { socketDoorSettings } from './config.ts';

export default definePlugin({
  id: 'example-door-jsonl-socket',
  apiVersion: KERNEL_API_VERSION,
  provides: doorPort,
  description: 'JSON-lines door on a Unix socket (every operation, same pipeline as HTTP)',
  dependsOn: { authenticator: authenticatorPort, operations: operationRunnerPort },
  settings: socketDoorSettings,
  configure: ({ exampleDoor }) => ({ socket: exampleDoor.socket }),
  create: ({ config, deps, logger }) => new JsonlSocketDoor(config.socket, deps.authenticator, deps.operations, logger),
});
