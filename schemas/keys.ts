import { Type, type TSchema } from '@sinclair/typebox';
import {
  EC_CURVES,
  ED_CURVES,
  KEY_ALGORITHMS,
  KEY_STATES,
  OBJECT_TYPES,
  PARAMETER_SETS,
  SIGNATURE_ALGORITHMS,
} from '../kernel/model/index.ts';
import { CallerText } from './caller-text.ts';
import { StringEnum } from './string-enum.ts';

const B64 = (description: string) => Type.String({ description: `${description} (standard base64)` });
const Timestamp = (description: string) => Type.String({ description: `${description} (ISO 8601 UTC)` });
const strict = <T extends Record<string, TSchema>>(props: T, title: string) =>
  Type.Object(props, { additionalProperties: false, title });

/** Tags as a caller sends and reads them: tag key -> value. */
export const Tags = (description: string) =>
  Type.Record(Type.String(), Type.String(), {
    description: `${description}: at most 50, key 1..128 and value 0..256 characters`,
  });

export const KeySpecRequest = strict(
  {
    name: Type.Optional(
      CallerText({
        minLength: 1,
        maxLength: 256,
        description: '1..256 characters, unique among keys that are not Destroyed; absent: the key is named by its id',
      }),
    ),
    algorithm: StringEnum(KEY_ALGORITHMS),
    sizeBits: Type.Optional(
      Type.Integer({
        description:
          'AES 128|192|256, HMAC 256|384|512, RSA 2048|3072|4096; EC 256|384|521 picks a P-curve; ML-DSA and SLH-DSA ' +
          'the parameter set’s security strength (128|192|256), which the set decides',
      }),
    ),
    curve: Type.Optional(
      StringEnum([...EC_CURVES, ...ED_CURVES], {
        description: 'EC: P-256 (default), P-384, P-521, secp256k1; EdDSA: Ed25519 (default), Ed448',
      }),
    ),
    parameterSet: Type.Optional(
      StringEnum(PARAMETER_SETS, {
        description:
          'ML-DSA: ML-DSA-44, ML-DSA-65 (default), ML-DSA-87; SLH-DSA: SLH-DSA-SHA2-128s (default) and every other ' +
          'SHA2 and SHAKE set (FIPS 205). Post-quantum keys need the service to run on Node 24',
      }),
    ),
    objectType: Type.Optional(
      StringEnum(OBJECT_TYPES, {
        description: 'SymmetricKey (AES, HMAC) or PrivateKey (RSA, EC, EdDSA, ML-DSA, SLH-DSA); defaulted',
      }),
    ),
    exportable: Type.Optional(
      Type.Boolean({
        description:
          'whether Humans and Services may export the material (POST ' +
          '/v1/keys/{id}/export); default false, fixed at creation',
      }),
    ),
    tags: Type.Optional(Tags('the tags the key starts with')),
  },
  'KeySpecRequest',
);

export const CreateKeyBody = strict(
  {
    spec: KeySpecRequest,
    activate: Type.Optional(
      Type.Boolean({
        description:
          'true: the key is created Active, in one step (the caller needs Activate as well as Create); default false: PreActive',
      }),
    ),
    awaitMaterial: Type.Optional(
      Type.Boolean({
        description:
          'true: the key is made without material, to receive imported material later (POST ' +
          '/v1/keys/{id}/import); it cannot be activated before. Not with activate',
      }),
    ),
  },
  'CreateKeyRequest',
);

export const KeySpec = Type.Object(
  {
    name: Type.String(),
    algorithm: StringEnum(KEY_ALGORITHMS),
    sizeBits: Type.Integer(),
    curve: Type.Optional(StringEnum([...EC_CURVES, ...ED_CURVES])),
    parameterSet: Type.Optional(StringEnum(PARAMETER_SETS, { description: 'ML-DSA and SLH-DSA keys' })),
    objectType: StringEnum(OBJECT_TYPES),
    exportable: Type.Boolean({ description: 'whether the material may be exported; fixed at creation' }),
    tags: Type.Optional(Tags("the tags given at creation (the current ones are the key's `tags`)")),
  },
  { title: 'KeySpec' },
);

export const ManagedKey = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    spec: KeySpec,
    owner: Type.String({ description: "the creating principal's subject (an agent's parent for agents)" }),
    tenant: Type.Optional(Type.String({ description: 'the tenant of the Service that created it' })),
    awaitingMaterial: Type.Optional(
      Type.Boolean({ description: 'true while the key waits for its imported material (made with awaitMaterial)' }),
    ),
    origin: StringEnum(['generated', 'imported'] as const, {
      description: 'generated: the service made the material; imported: a caller brought it (POST /v1/keys/import)',
    }),
    state: StringEnum(KEY_STATES),
    currentVersion: Type.Integer({ minimum: 1 }),
    createdAt: Timestamp('creation time'),
    activatedAt: Type.Optional(Timestamp('activation time')),
    rotatedAt: Type.Optional(Timestamp('last rotation')),
    revokedAt: Type.Optional(Timestamp('revocation time')),
    compromisedAt: Type.Optional(Timestamp('compromise time')),
    destroyedAt: Type.Optional(Timestamp('destruction time')),
    reason: Type.Optional(Type.String()),
    rotationPolicy: Type.String({ description: 'Manual, TimeBased:<duration> or OpCountBased:<count>' }),
    destroyAt: Type.Optional(
      Timestamp('when a scheduled destruction destroys the key; until then it serves no cryptographic call'),
    ),
    minVersion: Type.Optional(
      Type.Integer({
        minimum: 2,
        description: 'the lowest version whose material exists; the versions below it were trimmed (erased for good)',
      }),
    ),
    enabled: Type.Boolean({
      description: 'false while the key is disabled: it keeps its state but serves no cryptographic call or export',
    }),
    disabledAt: Type.Optional(Timestamp('when the key was disabled (present while it is)')),
    disabledReason: Type.Optional(Type.String({ description: 'why, when the caller that disabled it said' })),
    tags: Tags("the key's tags"),
    aliases: Type.Optional(
      Type.Array(Type.String(), { description: 'the aliases (alias/NAME) that name this key, by name' }),
    ),
  },
  { title: 'ManagedKey' },
);

export const ActivateResponse = Type.Object({
  id: Type.String(),
  state: StringEnum(KEY_STATES),
  activatedAt: Timestamp('activation time'),
});
export const ReasonBody = strict({ reason: Type.Optional(CallerText({ maxLength: 1024 })) }, 'ReasonRequest');
export const CompromiseBody = strict(
  { reason: CallerText({ maxLength: 1024, description: 'non-empty' }) },
  'CompromiseRequest',
);
export const RevokeResponse = Type.Object({
  id: Type.String(),
  state: StringEnum(KEY_STATES),
  revokedAt: Timestamp('revocation time'),
  reason: Type.Optional(Type.String()),
});
export const CompromiseResponse = Type.Object({
  id: Type.String(),
  state: StringEnum(KEY_STATES),
  compromisedAt: Timestamp('compromise time'),
  reason: Type.String(),
});
export const DestroyResponse = Type.Object({
  id: Type.String(),
  state: Type.Literal('Destroyed'),
  destroyedAt: Timestamp('destruction time'),
  erasure: StringEnum(['complete', 'pending'] as const, {
    description:
      "complete: the key's key-wrapping key and material are deleted and " +
      "erased from the journal database's files. pending: deleted, and the " +
      'erase of the files is retried in the background until done (a reader ' +
      "of SQLite's WAL or a lock on PostgreSQL prevents it now); see " +
      'svc_erasure_pending and the erasure check of /readyz',
  }),
});
export const RotateBody = strict(
  {
    policy: Type.Optional(Type.String({ description: 'Manual, TimeBased:<n><s|m|h|days>, OpCountBased:<n>' })),
    reason: Type.Optional(CallerText({ maxLength: 1024 })),
  },
  'RotateRequest',
);
export const RotateResponse = Type.Object({
  id: Type.String(),
  state: StringEnum(KEY_STATES),
  previousVersion: Type.Integer(),
  currentVersion: Type.Integer(),
  rotatedAt: Timestamp('rotation time'),
  rotationPolicy: Type.String(),
});

const SigAlgorithm = StringEnum(SIGNATURE_ALGORITHMS, {
  description: "one of the key family's algorithms; defaults to the key's own",
});
// Exactly one of the two is given (checked by the handler: a schema's oneOf would reach callers as an unreadable error).
const MessageBase64 = B64('the message; exactly one of messageBase64 and digestBase64');
const DigestBase64 = B64(
  'instead of the message, its hash as the algorithm hashes it (32, 48 or 64 bytes for SHA-256, ' +
    '-384, -512); RSA and ECDSA only. The signature is the one the message would get, and verifies as one',
);
export const SignBody = strict(
  {
    messageBase64: Type.Optional(MessageBase64),
    digestBase64: Type.Optional(DigestBase64),
    algorithm: Type.Optional(SigAlgorithm),
  },
  'SignRequest',
);
export const SignResponse = Type.Object({
  signatureBase64: B64('signature: DER for ECDSA, raw for EdDSA, HMAC, ML-DSA and SLH-DSA, PSS salt = digest length'),
  algorithm: Type.String(),
  keyVersion: Type.Integer(),
});
export const VerifyBody = strict(
  {
    messageBase64: Type.Optional(MessageBase64),
    digestBase64: Type.Optional(DigestBase64),
    signatureBase64: B64('signature'),
    algorithm: Type.Optional(SigAlgorithm),
    keyVersion: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  'VerifyRequest',
);
export const VerifyResponse = Type.Object({
  valid: Type.Boolean(),
  algorithm: Type.String(),
  keyVersion: Type.Optional(Type.Integer({ description: 'the version whose signature matched' })),
});

const Context = Type.Record(Type.String(), Type.String(), {
  description: 'Encryption context, bound as AAD; decrypt must present the same one',
});
export const EncryptBody = strict(
  { plaintextBase64: B64('plaintext, at most 64 KiB decoded'), context: Type.Optional(Context) },
  'EncryptRequest',
);
export const EncryptResponse = Type.Object({
  ciphertextBase64: B64('opaque envelope naming the key version'),
  keyVersion: Type.Integer(),
  algorithm: Type.String(),
});
export const DecryptBody = strict(
  { ciphertextBase64: B64('envelope from encrypt'), context: Type.Optional(Context) },
  'DecryptRequest',
);
export const DecryptResponse = Type.Object({ plaintextBase64: B64('plaintext'), keyVersion: Type.Integer() });

export const WrapBody = strict(
  {
    dekBase64: Type.Optional(B64('data key, 16..512 bytes, multiple of 8')),
    plaintextBase64: Type.Optional(B64('variant B name for the data key')),
  },
  'WrapRequest',
);
export const WrapResponse = Type.Object({
  wrappedDekBase64: B64('AES key wrap (RFC 3394) blob naming the key version'),
  keyVersion: Type.Integer(),
  algorithm: Type.String(),
});
export const UnwrapBody = strict(
  {
    wrappedDekBase64: Type.Optional(B64('blob from wrap')),
    wrappedKeyBase64: Type.Optional(B64('variant B name for the blob')),
  },
  'UnwrapRequest',
);
export const UnwrapResponse = Type.Object({
  dekBase64: B64('the data key, byte-identical to the one wrapped'),
  keyVersion: Type.Integer(),
});

export const PublicKeyQuery = Type.Object({
  version: Type.Optional(Type.Integer({ minimum: 1, maximum: 999999999, description: 'key version; default current' })),
});
export const PublicKeyResponse = Type.Object({
  id: Type.String(),
  keyVersion: Type.Integer(),
  algorithm: Type.String(),
  curve: Type.Optional(Type.String()),
  parameterSet: Type.Optional(Type.String({ description: 'ML-DSA and SLH-DSA keys: the parameter set' })),
  publicKeyPem: Type.String({ description: 'SPKI PEM' }),
});

/** A key id as it arrives from a door: any text; one that is not a UUID (nor an alias) is answered 404 KeyNotFound. */
export const KeyId = Type.String({ description: 'key id (UUID), or an alias naming the key (alias/NAME)' });
export const withKeyId = <T extends Record<string, TSchema>>(props: T, title: string) =>
  strict({ id: KeyId, ...props }, title);

export const KeyRef = withKeyId({}, 'KeyRef');
export const RotateInput = withKeyId(
  {
    ...RotateBody.properties,
    ifVersion: Type.Optional(
      Type.Integer({ minimum: 1, description: 'rotate only while the current version is this one (409 otherwise)' }),
    ),
  },
  'RotateInput',
);
export const RevokeInput = withKeyId(ReasonBody.properties, 'RevokeInput');
export const CompromiseInput = withKeyId(CompromiseBody.properties, 'CompromiseInput');
export const PublicKeyInput = withKeyId(PublicKeyQuery.properties, 'PublicKeyInput');
export const SignInput = withKeyId(SignBody.properties, 'SignInput');
export const VerifyInput = withKeyId(VerifyBody.properties, 'VerifyInput');
export const EncryptInput = withKeyId(EncryptBody.properties, 'EncryptInput');
export const DecryptInput = withKeyId(DecryptBody.properties, 'DecryptInput');
export const WrapInput = withKeyId(WrapBody.properties, 'WrapInput');
export const UnwrapInput = withKeyId(UnwrapBody.properties, 'UnwrapInput');

export const RewrapInput = strict({}, 'RewrapInput');
export const RewrapResponse = Type.Object(
  {
    rewrapped: Type.Integer({ description: 'key-wrapping keys moved to the current KEK' }),
    kekId: Type.String({ description: 'the current KEK' }),
  },
  { title: 'RewrapResponse' },
);

// Scheduled destruction and version trim.
export const DestroyQuery = Type.Object({
  waitingDays: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 30,
      description:
        'days before the key is destroyed (0: at once); default the ' +
        "deployment's keys.destroyWaitingDays; an Agent's DELETE waits at least " +
        'keys.agentDestroyWaitingDays',
    }),
  ),
});
export const DestroyInput = withKeyId(DestroyQuery.properties, 'DestroyInput');
export const DestroyScheduledResponse = Type.Object(
  {
    id: Type.String(),
    state: StringEnum(KEY_STATES, { description: 'unchanged until the destruction' }),
    destroyAt: Timestamp('when the service destroys the key, unless a Human cancels it before'),
  },
  { title: 'DestroyScheduledResponse' },
);
/**
 * DELETE's answer, either shape in one object (a tool's answer must be one): 200 destroyed, or 202 scheduled with
 * destroyAt.
 */
export const DestroyResult = Type.Object({
  id: Type.String(),
  state: StringEnum(KEY_STATES, { description: 'Destroyed, or (scheduled) the state the key keeps until then' }),
  destroyedAt: Type.Optional(Timestamp('destruction time (destroyed at once)')),
  erasure: Type.Optional(DestroyResponse.properties.erasure),
  destroyAt: Type.Optional(Timestamp('when the service destroys the key (scheduled: 202)')),
});
export const CancelDestroyResponse = Type.Object(
  {
    id: Type.String(),
    state: StringEnum(KEY_STATES),
    cancelledDestroyAt: Timestamp('the destruction date that was cancelled'),
  },
  { title: 'CancelDestroyResponse' },
);
export const DestroyDueInput = withKeyId(
  { destroyAt: Type.String({ description: 'the scheduled date this run carries out' }) },
  'DestroyDueInput',
);
export const TrimBody = strict(
  {
    minVersion: Type.Integer({
      minimum: 2,
      maximum: 999999999,
      description:
        'the lowest version to keep: every version below it is erased for good ' +
        "(2..currentVersion, above the key's present minVersion)",
    }),
  },
  'TrimRequest',
);
export const TrimInput = withKeyId(TrimBody.properties, 'TrimInput');
export const TrimResponse = Type.Object(
  {
    id: Type.String(),
    state: StringEnum(KEY_STATES),
    currentVersion: Type.Integer(),
    minVersion: Type.Integer({ description: 'versions below it are erased' }),
    erasure: DestroyResponse.properties.erasure,
  },
  { title: 'TrimResponse' },
);
