import { defineConfig } from '../../kernel/index.ts';

export const socketDoorConfig = defineConfig({
  exampleDoor: { socket: { doc: 'Unix socket path of the JSON-lines door (mode 0600).', format: String, default: 'data/svc.sock', env: 'SVC_EXAMPLE_DOOR_SOCKET' } },
});
