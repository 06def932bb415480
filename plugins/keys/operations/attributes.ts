import { type AnyOperation, defineOperation, keyResource, type ManagedKey } from '../../../kernel/index.ts';
import * as S from '../../../schemas/keys.ts';
import * as A from '../../../schemas/key-attributes.ts';
import type { KeyAttributes } from '../key-attributes.ts';
import { changeScope } from './lifecycle.ts';
import { requirePublishRight } from '../published-tag.ts';

const byKey = (input: { id?: unknown } | undefined) => keyResource(input?.id);
const STATE_ERRORS = ['KeyNotFound', 'IllegalOperation'] as const;

const enabledView = (key: ManagedKey) => ({
  id: key.id,
  state: key.state,
  enabled: key.enabled,
  ...(key.disabledAt ? { disabledAt: key.disabledAt } : {}),
  ...(key.disabledReason ? { disabledReason: key.disabledReason } : {}),
});

/** The reversible disable and enable, and tags. */
export function attributeOperations(attributes: KeyAttributes): AnyOperation[] {
  return [
    defineOperation({
      id: 'DisableKey',
      operation: 'Disable',
      group: 'Keys',
      summary: 'Pause a key (reversible): every cryptographic call and export is refused until a Human enables it',
      description:
        'Disable a key: it keeps its state, versions and tags, but every ' +
        'cryptographic call, public key and export under it is refused with ' +
        'IllegalOperation naming "disabled" until a Human enables it again. ' +
        'The safe pause when a key may be misused but is not known to be ' +
        'lost. Disabling a disabled key changes nothing. Agents may be ' +
        'scoped for it; only Humans enable.',
      errors: [...STATE_ERRORS],
      input: A.DisableInput,
      output: A.EnabledResponse,
      http: { method: 'POST', path: '/v1/keys/:id/disable' },
      resource: byKey,
      inputFacts: (input): Record<string, string> => (input.reason ? { reason: input.reason } : {}),
      handle: async (input, call) => ({
        result: enabledView(await attributes.disable(input.id, changeScope(call), input.reason)),
      }),
    }),
    defineOperation({
      id: 'EnableKey',
      operation: 'Enable',
      group: 'Keys',
      summary: 'Enable a disabled key again (Human only)',
      description:
        'Enable a disabled key: it serves again as its state allows. Human ' +
        'principals only: an agent or a service that was paused must not ' +
        'lift its own pause. Enabling an enabled key changes nothing.',
      errors: [...STATE_ERRORS],
      input: S.KeyRef,
      output: A.EnabledResponse,
      http: { method: 'POST', path: '/v1/keys/:id/enable' },
      resource: byKey,
      attributes: { humanOnly: true },
      handle: async (input, call) => ({ result: enabledView(await attributes.enable(input.id, changeScope(call))) }),
    }),
    defineOperation({
      id: 'TagKey',
      operation: 'AddAttribute',
      group: 'Keys',
      summary: "Set tags on a key (merged over the key's)",
      description:
        "Set tags on a key, merged over the ones it has (a key's value is " +
        'replaced). At most 50 tags per key, key 1..128 and value 0..256 ' +
        'characters. Locate finds keys by tag (tag=KEY:VALUE). Answers the ' +
        "key's tags now.",
      errors: [...STATE_ERRORS],
      input: A.TagInput,
      output: A.TagsResponse,
      http: { method: 'PUT', path: '/v1/keys/:id/tags' },
      resource: byKey,
      handle: async (input, call) => {
        requirePublishRight(input.tags, call);
        const key = await attributes.tag(input.id, changeScope(call), input.tags);
        return { result: { id: key.id, tags: key.tags } };
      },
    }),
    defineOperation({
      id: 'UntagKey',
      operation: 'AddAttribute',
      group: 'Keys',
      summary: 'Remove tags from a key',
      description:
        'Remove the named tags from a key (keys=a,b; names the key does not ' +
        "carry are ignored). Answers the key's tags now.",
      errors: [...STATE_ERRORS],
      input: A.UntagInput,
      output: A.TagsResponse,
      http: { method: 'DELETE', path: '/v1/keys/:id/tags' },
      resource: byKey,
      handle: async (input, call) => {
        const names = input.keys.split(',').filter((name) => name !== '');
        const key = await attributes.untag(input.id, changeScope(call), names);
        return { result: { id: key.id, tags: key.tags } };
      },
    }),
  ];
}
