import {
  type AnyOperation,
  defineOperation,
  keyResource,
  namedResource,
  type OperationCall,
  ownerOf,
  SvcError,
} from '../../../kernel/index.ts';
import * as S from '../../../schemas/keys.ts';
import { KEY_DESCRIPTIONS } from './descriptions.ts';
import { requirePublishRight } from '../published-tag.ts';
import { keyView, type KeyLifecycle } from '../key-lifecycle.ts';
import type { ChangeScope } from '../key-store.ts';
import type { KeyWrapping } from '../key-wrapping.ts';
import type { KeyDestruction } from '../key-destruction.ts';
import type { KeyAliasing } from '../key-aliasing.ts';

/** The change scope of a call: its principal, its trace, and the record to journal with the change. */
export const changeScope = (call: OperationCall): ChangeScope => ({
  by: call.principal.subject,
  owner: ownerOf(call.principal),
  ...(call.principal.kind === 'Service' && call.principal.tenant ? { tenant: call.principal.tenant } : {}),
  trace: call.trace,
  audit: call,
});
const byKey = (input: { id?: unknown } | undefined) => keyResource(input?.id);
const STATE_ERRORS = ['KeyNotFound', 'IllegalOperation'] as const;

/** Create, read and the state changes of a key, plus revoke and public-key. */
export function lifecycleOperations(
  lifecycle: KeyLifecycle,
  destruction: KeyDestruction,
  aliasing: KeyAliasing,
): AnyOperation[] {
  return [
    defineOperation({
      id: 'CreateKey',
      description: KEY_DESCRIPTIONS.CreateKey,
      operation: 'Create',
      group: 'Keys',
      summary: 'Create a key (state PreActive, version 1)',
      input: S.CreateKeyBody,
      output: S.ManagedKey,
      http: { method: 'POST', path: '/v1/keys', status: 201 },
      // A failed create names the requested key name; a successful one, the new key id (from the handler).
      resource: (input) => namedResource('name:', input?.spec?.name),
      handle: async (input, call) => {
        // Activation is a permission of its own: created Active only for a caller who may also activate.
        const resource = namedResource('name:', input.spec.name);
        const facts = {
          name: input.spec.name ?? '',
          owner: ownerOf(call.principal),
          ...(call.principal.kind === 'Service' && call.principal.tenant ? { tenant: call.principal.tenant } : {}),
        };
        if (input.activate && !call.permits('Activate', resource, facts))
          throw new SvcError('PermissionDenied', `${call.principal.subject} may create keys but not activate them`);
        if (input.activate && input.awaitMaterial)
          throw new SvcError('InvalidField', 'a key that awaits its material cannot be created Active');
        requirePublishRight(input.spec.tags, call);
        const options = { activate: input.activate === true, awaitMaterial: input.awaitMaterial === true };
        return { result: keyView(await lifecycle.create(input.spec, changeScope(call), options)) };
      },
    }),
    defineOperation({
      id: 'GetKey',
      description: KEY_DESCRIPTIONS.GetKey,
      operation: 'Get',
      group: 'Keys',
      summary: 'Get a key',
      errors: ['KeyNotFound'],
      input: S.KeyRef,
      output: S.ManagedKey,
      http: { method: 'GET', path: '/v1/keys/:id' },
      resource: byKey,
      attributes: { readOnly: true },
      handle: async (input, call) => {
        const key = await lifecycle.get(input.id, call.trace);
        return { result: keyView(key, await aliasing.aliasesOf([key.id])) };
      },
    }),
    defineOperation({
      id: 'ActivateKey',
      description: KEY_DESCRIPTIONS.ActivateKey,
      operation: 'Activate',
      group: 'Keys',
      summary: 'PreActive -> Active',
      errors: [...STATE_ERRORS],
      input: S.KeyRef,
      output: S.ActivateResponse,
      http: { method: 'POST', path: '/v1/keys/:id/activate' },
      resource: byKey,
      handle: async (input, call) => ({ result: await lifecycle.activate(input.id, changeScope(call)) }),
    }),
    defineOperation({
      id: 'RotateKey',
      description: KEY_DESCRIPTIONS.RotateKey,
      operation: 'Rotate',
      group: 'Keys',
      summary: 'New version; older versions keep verifying, decrypting, unwrapping',
      errors: [...STATE_ERRORS],
      input: S.RotateInput,
      output: S.RotateResponse,
      http: { method: 'POST', path: '/v1/keys/:id/rotate' },
      resource: byKey,
      attributes: { destructive: true },
      inputFacts: (input): Record<string, string> => ({
        ...(input.reason ? { reason: input.reason } : {}),
        ...(input.policy !== undefined ? { policy: input.policy } : {}),
      }),
      handle: async (input, call) => {
        // A new version is Rotate; changing the key's rotation policy (turning the owner's schedule off
        // with Manual) changes an attribute of the key, which Rotate alone must not grant.
        if (
          input.policy !== undefined &&
          !call.permits('AddAttribute', keyResource(input.id), await lifecycle.facts(input.id))
        ) {
          throw new SvcError(
            'PermissionDenied',
            `${call.principal.subject} may rotate but not change the rotation policy of ${input.id}: that needs AddAttribute`,
          );
        }
        return { result: await lifecycle.rotate(input.id, changeScope(call), input) };
      },
    }),
    defineOperation({
      id: 'RevokeKey',
      description: KEY_DESCRIPTIONS.RevokeKey,
      operation: 'Revoke',
      group: 'Keys',
      summary: 'Active -> Deactivated (old material still verifies and decrypts)',
      errors: [...STATE_ERRORS],
      input: S.RevokeInput,
      output: S.RevokeResponse,
      http: { method: 'POST', path: '/v1/keys/:id/revoke' },
      resource: byKey,
      attributes: { destructive: true },
      inputFacts: (input): Record<string, string> => (input.reason ? { reason: input.reason } : {}),
      handle: async (input, call) => ({ result: await lifecycle.revoke(input.id, changeScope(call), input.reason) }),
    }),
    defineOperation({
      id: 'CompromiseKey',
      description: KEY_DESCRIPTIONS.CompromiseKey,
      operation: 'Compromise',
      group: 'Keys',
      summary: 'Mark compromised (one-way; every crypto call refused after)',
      errors: [...STATE_ERRORS],
      input: S.CompromiseInput,
      output: S.CompromiseResponse,
      http: { method: 'POST', path: '/v1/keys/:id/compromise' },
      resource: byKey,
      attributes: {
        destructive: true,
        agentsRefused:
          'a compromise ends the key at once and for good, where an agent may only schedule a destruction that waits',
      },
      inputFacts: (input) => ({ severity: 'Critical', reason: input.reason }),
      handle: async (input, call) => ({
        result: await lifecycle.compromise(input.id, changeScope(call), input.reason),
      }),
    }),
    defineOperation({
      id: 'DestroyKey',
      description: KEY_DESCRIPTIONS.DestroyKey,
      operation: 'Destroy',
      group: 'Keys',
      summary: "Destroy: erase every version's material for good, at once or after a waiting period",
      errors: [...STATE_ERRORS],
      input: S.DestroyInput,
      output: S.DestroyResult,
      http: {
        method: 'DELETE',
        path: '/v1/keys/:id',
        accepted: {
          when: (result: { destroyAt?: string }) => result.destroyAt !== undefined,
          output: S.DestroyScheduledResponse,
        },
      },
      resource: byKey,
      attributes: { destructive: true },
      inputFacts: (input): Record<string, string> =>
        input.waitingDays !== undefined ? { requestedWaitingDays: String(input.waitingDays) } : {},
      handle: async (input, call) => ({
        result: await destruction.destroy(input.id, changeScope(call), input.waitingDays, call.principal.kind),
      }),
    }),
    defineOperation({
      id: 'GetPublicKey',
      description: KEY_DESCRIPTIONS.GetPublicKey,
      operation: 'Get',
      group: 'Keys',
      summary: 'SPKI PEM public key of an RSA, EC or EdDSA key',
      errors: [...STATE_ERRORS],
      input: S.PublicKeyInput,
      output: S.PublicKeyResponse,
      http: { method: 'GET', path: '/v1/keys/:id/public-key' },
      resource: byKey,
      attributes: { readOnly: true },
      handle: async (input, call) => ({
        result: await lifecycle.publicKey(input.id, input.version ? Number(input.version) : undefined, call.trace),
      }),
    }),
  ];
}

/**
 * KEK rotation: re-wraps every key-wrapping key under the root of trust's current KEK. Run by the
 * server's `rewrap` command as svc-system through the pipeline, so it is audited like any operation
 * (Rotate, resource kek:<current KEK id>). It has no HTTP binding.
 */
export function rewrapOperation(wrapping: KeyWrapping, currentKekId: () => string): AnyOperation {
  return defineOperation({
    id: 'RewrapKeys',
    description: KEY_DESCRIPTIONS.RewrapKeys,
    operation: 'Rotate',
    group: 'Keys',
    summary: 'Re-wrap every key-wrapping key under the current KEK',
    input: S.RewrapInput,
    output: S.RewrapResponse,
    attributes: { destructive: true, toolName: false },
    resource: () => `kek:${currentKekId()}`,
    handle: async () => {
      const { rewrapped, kekId } = await wrapping.rewrapAll();
      return { result: { rewrapped, kekId }, audit: { context: { rewrapped: String(rewrapped) } } };
    },
  });
}
