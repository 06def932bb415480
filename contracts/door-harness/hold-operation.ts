import { Type } from '@sinclair/typebox';
import {
  definePlugin,
  defineOperation,
  KERNEL_API_VERSION,
  operationsPort,
  type OperationContribution,
} from '../../kernel/index.ts';

/**
 * The door contract's held call: `DoorContractHold` waits until the suite releases it, so the suite can
 * stop the service while a call is in flight. Loaded only by the door contract's own service.
 */
export const heldCall = {
  entered: false,
  release: (): void => undefined,
};

export default definePlugin({
  id: 'door-contract-hold',
  apiVersion: KERNEL_API_VERSION,
  provides: operationsPort,
  description: 'the door contract suite: an operation that waits until the suite releases it',
  create: (): OperationContribution => ({
    operations: [
      defineOperation({
        id: 'DoorContractHold',
        operation: 'Get',
        group: 'DoorContract',
        summary: 'Waits until the door contract suite releases it',
        input: Type.Object({}),
        output: Type.Object({ held: Type.Boolean() }),
        http: { method: 'POST', path: '/v1/door-contract/hold' },
        resource: () => 'door-contract',
        handle: async () => {
          await new Promise<void>((resolve) => {
            heldCall.release = resolve;
            heldCall.entered = true;
          });
          return { result: { held: true } };
        },
      }),
    ],
  }),
});
