import { Type } from '@sinclair/typebox';
import { KEY_ALGORITHMS, KEY_STATES } from '../kernel/model/index.ts';
import { ManagedKey } from './keys.ts';
import { StringEnum } from './string-enum.ts';

/** GET /v1/keys: what to find. Unknown query parameters are refused, so a misspelt filter never widens the answer. */
export const LocateKeysQuery = Type.Object(
  {
    name: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 256,
        description: 'an exact key name, or a glob where * matches any run of characters (payments-*); case-sensitive',
      }),
    ),
    state: Type.Optional(StringEnum(KEY_STATES)),
    algorithm: Type.Optional(StringEnum(KEY_ALGORITHMS)),
    owner: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: "the owner's subject, exact" })),
    createdAfter: Type.Optional(
      Type.String({ maxLength: 64, description: 'RFC 3339 date-time (or a date: midnight UTC), exclusive' }),
    ),
    createdBefore: Type.Optional(
      Type.String({ maxLength: 64, description: 'RFC 3339 date-time (or a date: midnight UTC), exclusive' }),
    ),
    tag: Type.Optional(
      Type.Union([Type.String({ maxLength: 400 }), Type.Array(Type.String({ maxLength: 400 }), { maxItems: 50 })], {
        description: 'KEY:VALUE, repeatable (tag=team:payments&tag=env:prod): keys carrying every one of them',
      }),
    ),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 1000, description: 'keys per page, 1..1000; default 100' }),
    ),
    cursor: Type.Optional(
      Type.String({ maxLength: 200, description: 'the nextCursor of the previous page, with the same filters' }),
    ),
  },
  { additionalProperties: false, title: 'LocateKeysQuery' },
);

export const KeyPage = Type.Object(
  {
    keys: Type.Array(ManagedKey, { description: 'newest first; only keys the caller may read (Get)' }),
    nextCursor: Type.Optional(
      Type.String({
        description:
          'present when there may be more: pass it as cursor for the next page (which may hold fewer keys, or none)',
      }),
    ),
  },
  { title: 'KeyPage' },
);
