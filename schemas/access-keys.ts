import { Type } from '@sinclair/typebox';
import { CallerText } from './caller-text.ts';

const AccessKeyId = Type.String({ description: 'AKSV and 16 characters of A-Z and 2-7 (20 in all)' });

export const AccessKeyPrincipal = Type.Object(
  {
    kind: Type.Union([Type.Literal('Human'), Type.Literal('Service')]),
    subject: Type.String(),
  },
  { title: 'AccessKeyPrincipal', description: 'who a call signed with the key acts as' },
);

export const CreateAccessKeyBody = Type.Object(
  {
    service: Type.Optional(
      CallerText({
        minLength: 1,
        maxLength: 256,
        description: 'the subject of the Service the key is for (not svc-system); leave it out for a key of your own',
      }),
    ),
  },
  { additionalProperties: false, title: 'CreateAccessKeyRequest' },
);

export const CreateAccessKeyResponse = Type.Object(
  {
    accessKeyId: AccessKeyId,
    secretAccessKey: Type.String({
      description: '32 random bytes, base64url without padding (43 characters); shown once, never stored in the clear',
    }),
    principal: AccessKeyPrincipal,
    createdAt: Type.String({ description: 'ISO 8601 UTC' }),
  },
  { title: 'CreateAccessKeyResponse' },
);

export const AccessKeyView = Type.Object(
  {
    accessKeyId: AccessKeyId,
    principal: AccessKeyPrincipal,
    createdAt: Type.String({ description: 'ISO 8601 UTC' }),
    createdBy: Type.String({ description: 'the Human who created it' }),
  },
  { title: 'AccessKey' },
);

export const ListAccessKeysQuery = Type.Object(
  {
    principal: Type.Optional(
      Type.String({ maxLength: 512, description: 'only the keys of this subject (a Human or a Service)' }),
    ),
    after: Type.Optional(Type.String({ maxLength: 64, description: 'the nextAfter of the previous page' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: '1..1000; default 100' })),
  },
  { additionalProperties: false, title: 'ListAccessKeysQuery' },
);

export const AccessKeyList = Type.Object(
  {
    accessKeys: Type.Array(AccessKeyView, { description: 'by accessKeyId; never a secret' }),
    nextAfter: Type.Optional(
      Type.String({ description: 'present when there may be more: pass it as after for the next page' }),
    ),
  },
  { title: 'AccessKeyList' },
);

export const AccessKeyRef = Type.Object(
  { accessKeyId: Type.String({ maxLength: 64 }) },
  { additionalProperties: false, title: 'AccessKeyRef' },
);

export const DeleteAccessKeyResponse = Type.Object(
  {
    accessKeyId: Type.String(),
    deleted: Type.Literal(true),
    principal: AccessKeyPrincipal,
  },
  { title: 'DeleteAccessKeyResponse' },
);
