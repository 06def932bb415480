import { Type } from '@sinclair/typebox';
// A published plugin would import these from the svc-kms package; the example sits in the repository.
import { defineSettings } from '../../kernel/index.ts';

/**
 * The door's one setting, `exampleDoor.socket`, read from `SVC_EXAMPLE_DOOR_SOCKET` too (its key in upper snake case).
 */
export const socketDoorSettings = defineSettings(
  Type.Object({
    exampleDoor: Type.Object({
      socket: Type.String({
        description: 'Unix socket path of the JSON-lines door (mode 0600).',
        default: 'data/svc.sock',
      }),
    }),
  }),
);
