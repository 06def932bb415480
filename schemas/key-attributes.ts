import { type TSchema, Type } from '@sinclair/typebox';
import { KEY_STATES } from '../kernel/model/index.ts';
import { ReasonBody, Tags, withKeyId } from './keys.ts';
import { StringEnum } from './string-enum.ts';

const Timestamp = (description: string) => Type.String({ description: `${description} (ISO 8601 UTC)` });
const strict = <T extends Record<string, TSchema>>(props: T, title: string) =>
  Type.Object(props, { additionalProperties: false, title });

// A key's attributes beside its lifecycle: the reversible disable, and tags.
export const DisableInput = withKeyId(ReasonBody.properties, 'DisableInput');
export const EnabledResponse = Type.Object(
  {
    id: Type.String(),
    state: StringEnum(KEY_STATES),
    enabled: Type.Boolean(),
    disabledAt: Type.Optional(Timestamp('when the key was disabled')),
    disabledReason: Type.Optional(Type.String()),
  },
  { title: 'EnabledResponse' },
);
export const TagBody = strict({ tags: Tags("tags to set, merged over the key's") }, 'TagRequest');
export const TagInput = withKeyId(TagBody.properties, 'TagInput');
export const UntagInput = withKeyId(
  {
    keys: Type.String({
      minLength: 1,
      maxLength: 8192,
      description: 'the tag keys to remove, comma-separated (a key the key does not carry is ignored)',
    }),
  },
  'UntagInput',
);
export const TagsResponse = Type.Object(
  { id: Type.String(), tags: Tags("the key's tags now") },
  { title: 'TagsResponse' },
);
