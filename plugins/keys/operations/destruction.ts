import { type AnyOperation, defineOperation, keyResource, SvcError, SYSTEM_PRINCIPAL } from '../../../kernel/index.ts';
import * as S from '../../../schemas/keys.ts';
import type { KeyDestruction } from '../key-destruction.ts';
import { KEY_DESCRIPTIONS } from './descriptions.ts';
import { changeScope } from './lifecycle.ts';

const byKey = (input: { id?: unknown } | undefined) => keyResource(input?.id);
const STATE_ERRORS = ['KeyNotFound', 'IllegalOperation'] as const;

/** Cancelling a scheduled destruction, trimming old versions, and the scheduler's own destroy. */
export function destructionOperations(destruction: KeyDestruction): AnyOperation[] {
  return [
    defineOperation({
      id: 'CancelDestroy',
      description: KEY_DESCRIPTIONS.CancelDestroy,
      operation: 'Destroy',
      group: 'Keys',
      summary: 'Cancel a scheduled destruction (Humans only)',
      errors: [...STATE_ERRORS],
      input: S.KeyRef,
      output: S.CancelDestroyResponse,
      http: { method: 'POST', path: '/v1/keys/:id/cancel-destroy' },
      resource: byKey,
      // Only a person may take back a destruction: an agent or a service that could cancel could also
      // keep a key alive that an operator meant to retire.
      attributes: { humanOnly: true },
      handle: async (input, call) => ({ result: await destruction.cancel(input.id, changeScope(call)) }),
    }),
    defineOperation({
      id: 'TrimKey',
      description: KEY_DESCRIPTIONS.TrimKey,
      operation: 'Destroy',
      group: 'Keys',
      summary: 'Erase every version below minVersion for good',
      errors: [...STATE_ERRORS],
      input: S.TrimInput,
      output: S.TrimResponse,
      http: { method: 'POST', path: '/v1/keys/:id/trim' },
      resource: byKey,
      attributes: {
        destructive: true,
        agentsRefused:
          "agents may not trim key versions: a trim erases material at once, and an agent's destruction always waits",
      },
      inputFacts: (input) => ({ requestedMinVersion: String(input.minVersion) }),
      handle: async (input, call) => ({
        result: await destruction.trim(input.id, input.minVersion, changeScope(call)),
      }),
    }),
    defineOperation({
      id: 'DestroyScheduledKey',
      description: KEY_DESCRIPTIONS.DestroyScheduledKey,
      operation: 'Destroy',
      group: 'Keys',
      summary: 'Carry out a scheduled destruction that is due (the service itself)',
      errors: [...STATE_ERRORS],
      input: S.DestroyDueInput,
      output: S.DestroyResponse,
      resource: byKey,
      attributes: { destructive: true, toolName: false },
      handle: async (input, call) => {
        if (call.principal !== SYSTEM_PRINCIPAL)
          throw new SvcError('PermissionDenied', 'only the service itself carries out scheduled destructions');
        return { result: await destruction.destroyDue(input.id, input.destroyAt, changeScope(call)) };
      },
    }),
  ];
}
