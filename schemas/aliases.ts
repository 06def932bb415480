import { Type } from '@sinclair/typebox';
import { KeyId } from './keys.ts';

const AliasName = Type.String({
  maxLength: 256,
  description: 'alias/NAME: NAME 1..250 of A-Za-z0-9/_-, not starting with aws/ (in a path: alias%2FNAME)',
});

export const Alias = Type.Object(
  {
    name: Type.String({ description: 'alias/NAME' }),
    keyId: Type.String({ description: 'the key it names' }),
    createdAt: Type.String({ description: 'when it was created or last moved (ISO 8601 UTC)' }),
  },
  { title: 'Alias' },
);

export const PutAliasInput = Type.Object(
  {
    name: AliasName,
    keyId: KeyId,
    createOnly: Type.Optional(
      Type.Boolean({
        description: 'true: 409 when the alias already names a key (create, never move); default false',
      }),
    ),
  },
  { additionalProperties: false, title: 'PutAliasInput' },
);

export const PutAliasResponse = Type.Object(
  {
    name: Type.String(),
    keyId: Type.String(),
    createdAt: Type.String(),
    previousKeyId: Type.Optional(Type.String({ description: 'for a move: the key the alias named before' })),
  },
  { title: 'PutAliasResponse' },
);

export const AliasRef = Type.Object({ name: AliasName }, { additionalProperties: false, title: 'AliasRef' });

export const DeleteAliasResponse = Type.Object(
  { name: Type.String(), keyId: Type.String({ description: 'the key it named' }) },
  { title: 'DeleteAliasResponse' },
);

export const ListAliasesQuery = Type.Object(
  {
    keyId: Type.Optional(
      Type.String({ maxLength: 300, description: "only this key's aliases (a key id or an alias)" }),
    ),
    after: Type.Optional(Type.String({ maxLength: 256, description: 'the nextAfter of the previous page' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: '1..1000; default 100' })),
  },
  { additionalProperties: false, title: 'ListAliasesQuery' },
);

export const AliasList = Type.Object(
  {
    aliases: Type.Array(Alias, { description: 'by name; only aliases of keys the caller may read (Get)' }),
    nextAfter: Type.Optional(
      Type.String({ description: 'present when there may be more: pass it as after for the next page' }),
    ),
  },
  { title: 'AliasList' },
);
