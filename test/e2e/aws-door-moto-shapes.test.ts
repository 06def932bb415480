import { createHash, randomUUID } from 'node:crypto';
import t from 'tap';
import { accessKeyFor, awsRequest, type RawAnswer } from '../helpers/aws-kms.ts';
import { MOTO_REGION, moto } from '../helpers/moto.ts';
import { startTestService } from '../helpers/service.ts';

/**
 * One sequence of AWS KMS calls, made the same way against moto (the AWS KMS emulation the tests
 * already run) and against the AWS door, answer by answer: the STRUCTURE of each raw JSON answer (every
 * member's path, recursively, and its JSON type; values ignored) must be the same, and a refusal must
 * carry the same exception name and HTTP status. Raw answers, not the SDK's parsed objects: the SDK
 * drops members it does not know, and those are differences too. In the wire format a blob is a base64
 * string and a timestamp a number of epoch seconds, so a Date sent as text or a blob sent as a number
 * shows up as a type difference.
 *
 * moto is not AWS: where it answers fewer or other members than AWS's API reference documents, the
 * difference is listed in MOTO_DIFFERS below with the reason; everything else must match.
 */

/** The member paths of a JSON answer and their JSON types: `KeyMetadata.Arn` string, `Keys[].KeyId` string. */
function shapeOf(value: unknown, at = '', into = new Map<string, string>()): Map<string, string> {
  const type = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  if (at !== '') {
    const seen = into.get(at);
    into.set(at, seen === undefined || seen === type ? type : `${seen}|${type}`);
  }
  if (Array.isArray(value)) for (const element of value) shapeOf(element, `${at}[]`, into);
  else if (type === 'object')
    for (const [member, inner] of Object.entries(value as object))
      shapeOf(inner, at ? `${at}.${member}` : member, into);
  return into;
}

/**
 * moto writes `null` for members AWS leaves out (json.dumps(None) as the whole answer of CreateAlias,
 * DisableKey...; "NextMarker": null in ListKeys and ListResourceTags; "SigningAlgorithms": null for
 * an encryption key, "EncryptionAlgorithms": null for a signing key). Every AWS SDK reads a null member
 * as an absent one, so moto's nulls are dropped before comparing. The door's answers are held to more:
 * they must have no null anywhere (checked on their own).
 */
function withoutNulls(value: unknown): unknown {
  if (value === null || value === undefined) return undefined;
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value as object)
        .map(([k, v]) => [k, withoutNulls(v)] as const)
        .filter(([, v]) => v !== undefined),
    );
  return value;
}

const hasNull = (value: unknown): boolean =>
  value === null ||
  (typeof value === 'object' && value !== undefined && Object.values(value as object).some((v) => hasNull(v)));

/** The exception name of an error answer (`__type`, maybe prefixed with the service's namespace). */
const exceptionOf = (answer: RawAnswer) => String(answer.body?.__type ?? '').replace(/^.*#/, '');

interface Difference {
  /** Members (paths as shapeOf writes them) the door answers and moto does not. */
  onlyDoor?: string[];
  /** Members moto answers and the door does not. */
  onlyMoto?: string[];
  /** moto answers this call where AWS (and the door) refuse it: the door must refuse with `door`. */
  motoAccepts?: { door: string };
  reason: string;
}

/**
 * Where moto (5.x, moto/kms/responses.py and models.py) differs from AWS's API reference, by step. The
 * door answers as AWS documents; the comparison ignores exactly these members or answers, nothing else.
 */
const MULTI_REGION =
  'moto echoes the MultiRegion of the CreateKey request, null when it named none; AWS always answers MultiRegion (false for a single-Region key; KeyMetadata)';
const MOTO_DIFFERS: Record<string, Difference> = {
  'CreateKey symmetric with tags and a description': { onlyDoor: ['KeyMetadata.MultiRegion'], reason: MULTI_REGION },
  'CreateKey with no arguments': {
    onlyDoor: ['KeyMetadata.KeyUsage', 'KeyMetadata.MultiRegion'],
    onlyMoto: ['KeyMetadata.SigningAlgorithms'],
    reason: `moto leaves KeyUsage null when CreateKey named none, and so answers an empty SigningAlgorithms; AWS's default is ENCRYPT_DECRYPT, answered as such, with no SigningAlgorithms for an encryption key (API_CreateKey). ${MULTI_REGION}`,
  },
  'CreateKey, another': { onlyDoor: ['KeyMetadata.MultiRegion'], reason: MULTI_REGION },
  DescribeKey: { onlyDoor: ['KeyMetadata.MultiRegion'], reason: MULTI_REGION },
  'CreateKey RSA_2048': { onlyDoor: ['KeyMetadata.MultiRegion'], reason: MULTI_REGION },
  'DescribeKey pending deletion': { onlyDoor: ['KeyMetadata.MultiRegion'], reason: MULTI_REGION },
  'DescribeKey after CancelKeyDeletion': { onlyDoor: ['KeyMetadata.MultiRegion'], reason: MULTI_REGION },
  'Decrypt a tampered ciphertext': {
    onlyDoor: ['message'],
    reason:
      'moto answers InvalidCiphertextException with no message member; the door says which check failed in its usual message (AWS SDKs read both alike)',
  },
  Encrypt: {
    onlyDoor: ['EncryptionAlgorithm'],
    reason: 'moto answers CiphertextBlob and KeyId only; AWS answers EncryptionAlgorithm too (API_Encrypt)',
  },
  Decrypt: {
    onlyDoor: ['EncryptionAlgorithm'],
    reason: 'moto answers Plaintext and KeyId only; AWS answers EncryptionAlgorithm too (API_Decrypt)',
  },
  ReEncrypt: {
    onlyDoor: ['SourceEncryptionAlgorithm', 'DestinationEncryptionAlgorithm'],
    reason: 'moto leaves out both algorithms that AWS answers (API_ReEncrypt)',
  },
  ListAliases: {
    onlyDoor: ['Aliases[].CreationDate', 'Aliases[].LastUpdatedDate'],
    reason: 'moto has a TODO for the alias dates that AWS answers (API_ListAliases, AliasListEntry)',
  },
  'Encrypt with a disabled key': {
    motoAccepts: { door: 'DisabledException' },
    reason:
      'moto checks no key state in Encrypt; AWS refuses a disabled key with DisabledException (API_Encrypt, Errors)',
  },
  'GetPublicKey RSA_2048': {
    onlyDoor: ['KeySpec'],
    reason: 'moto answers only the deprecated CustomerMasterKeySpec; AWS answers KeySpec too (API_GetPublicKey)',
  },
  'Verify a wrong signature': {
    motoAccepts: { door: 'KMSInvalidSignatureException' },
    reason:
      'moto answers SignatureValid false; AWS fails the call with KMSInvalidSignatureException (API_Verify: "If the signature is not verified, the Verify operation fails")',
  },
  'CreateKey HMAC_256': {
    onlyDoor: ['KeyMetadata.MacAlgorithms', 'KeyMetadata.MacAlgorithms[]', 'KeyMetadata.MultiRegion'],
    onlyMoto: [
      'KeyMetadata.EncryptionAlgorithms',
      'KeyMetadata.EncryptionAlgorithms[]',
      'KeyMetadata.SigningAlgorithms',
    ],
    reason: `moto gives an HMAC key RSAES_OAEP EncryptionAlgorithms and an empty SigningAlgorithms and no MacAlgorithms; AWS answers MacAlgorithms for a GENERATE_VERIFY_MAC key and neither of the others (KeyMetadata). ${MULTI_REGION}`,
  },
  ScheduleKeyDeletion: {
    onlyDoor: ['KeyState', 'PendingWindowInDays'],
    reason:
      'moto answers KeyId and DeletionDate only; AWS answers KeyState and PendingWindowInDays too (API_ScheduleKeyDeletion)',
  },
};

interface Context {
  [name: string]: string;
}

interface Step {
  name: string;
  target: string;
  body: (c: Context) => Record<string, unknown>;
  /** What later steps need from the answer. */
  keep?: (answer: any, c: Context) => void;
  /** The exception AWS answers (the call is a refusal case). */
  refusal?: string;
}

const b64 = (bytes: Buffer | string) => Buffer.from(bytes).toString('base64');
const MESSAGE = Buffer.from('the same message for moto and the door');

const STEPS: Step[] = [
  {
    name: 'CreateKey symmetric with tags and a description',
    target: 'CreateKey',
    body: () => ({
      Description: 'shape comparison',
      KeySpec: 'SYMMETRIC_DEFAULT',
      KeyUsage: 'ENCRYPT_DECRYPT',
      Tags: [{ TagKey: 'team', TagValue: 'shapes' }],
    }),
    keep: (a, c) => {
      c.key = a.KeyMetadata.KeyId;
    },
  },
  { name: 'CreateKey with no arguments', target: 'CreateKey', body: () => ({}) },
  {
    name: 'CreateKey, another',
    target: 'CreateKey',
    body: () => ({ KeySpec: 'SYMMETRIC_DEFAULT', KeyUsage: 'ENCRYPT_DECRYPT' }),
    keep: (a, c) => {
      c.second = a.KeyMetadata.KeyId;
    },
  },
  { name: 'DescribeKey', target: 'DescribeKey', body: (c) => ({ KeyId: c.key }) },
  { name: 'ListKeys', target: 'ListKeys', body: () => ({}) },
  {
    name: 'Encrypt',
    target: 'Encrypt',
    body: (c) => ({ KeyId: c.key, Plaintext: b64('shape'), EncryptionContext: { purpose: 'shapes' } }),
    keep: (a, c) => {
      c.ciphertext = a.CiphertextBlob;
    },
  },
  {
    name: 'Decrypt',
    target: 'Decrypt',
    body: (c) => ({ CiphertextBlob: c.ciphertext, EncryptionContext: { purpose: 'shapes' } }),
  },
  { name: 'GenerateDataKey', target: 'GenerateDataKey', body: (c) => ({ KeyId: c.key, KeySpec: 'AES_256' }) },
  {
    name: 'GenerateDataKeyWithoutPlaintext',
    target: 'GenerateDataKeyWithoutPlaintext',
    body: (c) => ({ KeyId: c.key, NumberOfBytes: 32 }),
  },
  {
    name: 'ReEncrypt',
    target: 'ReEncrypt',
    body: (c) => ({
      CiphertextBlob: c.ciphertext,
      SourceEncryptionContext: { purpose: 'shapes' },
      DestinationKeyId: c.second,
    }),
  },
  { name: 'GenerateRandom', target: 'GenerateRandom', body: () => ({ NumberOfBytes: 16 }) },
  { name: 'CreateAlias', target: 'CreateAlias', body: (c) => ({ AliasName: c.alias, TargetKeyId: c.key }) },
  {
    name: 'CreateAlias a second time',
    target: 'CreateAlias',
    body: (c) => ({ AliasName: c.alias, TargetKeyId: c.second }),
    refusal: 'AlreadyExistsException',
  },
  { name: 'ListAliases', target: 'ListAliases', body: (c) => ({ KeyId: c.key }) },
  { name: 'UpdateAlias', target: 'UpdateAlias', body: (c) => ({ AliasName: c.alias, TargetKeyId: c.second }) },
  {
    name: 'DeleteAlias by alias ARN',
    target: 'DeleteAlias',
    body: (c) => ({ AliasName: `${c.arnPrefix}:${c.alias}` }),
    refusal: 'ValidationException',
  },
  { name: 'DeleteAlias', target: 'DeleteAlias', body: (c) => ({ AliasName: c.alias }) },
  {
    name: 'TagResource',
    target: 'TagResource',
    body: (c) => ({ KeyId: c.key, Tags: [{ TagKey: 'env', TagValue: 'test' }] }),
  },
  { name: 'ListResourceTags', target: 'ListResourceTags', body: (c) => ({ KeyId: c.key }) },
  { name: 'UntagResource', target: 'UntagResource', body: (c) => ({ KeyId: c.key, TagKeys: ['env'] }) },
  { name: 'DisableKey', target: 'DisableKey', body: (c) => ({ KeyId: c.key }) },
  {
    name: 'Encrypt with a disabled key',
    target: 'Encrypt',
    body: (c) => ({ KeyId: c.key, Plaintext: b64('x') }),
    refusal: 'DisabledException',
  },
  { name: 'EnableKey', target: 'EnableKey', body: (c) => ({ KeyId: c.key }) },
  {
    name: 'CreateKey RSA_2048',
    target: 'CreateKey',
    body: () => ({ KeySpec: 'RSA_2048', KeyUsage: 'SIGN_VERIFY' }),
    keep: (a, c) => {
      c.rsa = a.KeyMetadata.KeyId;
    },
  },
  { name: 'GetPublicKey RSA_2048', target: 'GetPublicKey', body: (c) => ({ KeyId: c.rsa }) },
  {
    name: 'Sign RAW',
    target: 'Sign',
    body: (c) => ({ KeyId: c.rsa, Message: b64(MESSAGE), MessageType: 'RAW', SigningAlgorithm: 'RSASSA_PSS_SHA_256' }),
    keep: (a, c) => {
      c.signature = a.Signature;
    },
  },
  {
    name: 'Verify RAW',
    target: 'Verify',
    body: (c) => ({
      KeyId: c.rsa,
      Message: b64(MESSAGE),
      MessageType: 'RAW',
      Signature: c.signature,
      SigningAlgorithm: 'RSASSA_PSS_SHA_256',
    }),
  },
  {
    name: 'Sign DIGEST',
    target: 'Sign',
    body: (c) => ({
      KeyId: c.rsa,
      Message: b64(createHash('sha256').update(MESSAGE).digest()),
      MessageType: 'DIGEST',
      SigningAlgorithm: 'RSASSA_PKCS1_V1_5_SHA_256',
    }),
    keep: (a, c) => {
      c.digestSignature = a.Signature;
    },
  },
  {
    name: 'Verify DIGEST',
    target: 'Verify',
    body: (c) => ({
      KeyId: c.rsa,
      Message: b64(createHash('sha256').update(MESSAGE).digest()),
      MessageType: 'DIGEST',
      Signature: c.digestSignature,
      SigningAlgorithm: 'RSASSA_PKCS1_V1_5_SHA_256',
    }),
  },
  {
    name: 'Verify a wrong signature',
    target: 'Verify',
    body: (c) => ({
      KeyId: c.rsa,
      Message: b64('another message'),
      Signature: c.signature,
      SigningAlgorithm: 'RSASSA_PSS_SHA_256',
    }),
    refusal: 'KMSInvalidSignatureException',
  },
  {
    name: 'CreateKey HMAC_256',
    target: 'CreateKey',
    body: () => ({ KeySpec: 'HMAC_256', KeyUsage: 'GENERATE_VERIFY_MAC' }),
    keep: (a, c) => {
      c.hmac = a.KeyMetadata.KeyId;
    },
  },
  {
    name: 'GenerateMac',
    target: 'GenerateMac',
    body: (c) => ({ KeyId: c.hmac, Message: b64(MESSAGE), MacAlgorithm: 'HMAC_SHA_256' }),
    keep: (a, c) => {
      c.mac = a.Mac;
    },
  },
  {
    name: 'VerifyMac',
    target: 'VerifyMac',
    body: (c) => ({ KeyId: c.hmac, Message: b64(MESSAGE), Mac: c.mac, MacAlgorithm: 'HMAC_SHA_256' }),
  },
  { name: 'RotateKeyOnDemand', target: 'RotateKeyOnDemand', body: (c) => ({ KeyId: c.key }) },
  {
    name: 'ScheduleKeyDeletion',
    target: 'ScheduleKeyDeletion',
    body: (c) => ({ KeyId: c.second, PendingWindowInDays: 7 }),
  },
  { name: 'DescribeKey pending deletion', target: 'DescribeKey', body: (c) => ({ KeyId: c.second }) },
  { name: 'CancelKeyDeletion', target: 'CancelKeyDeletion', body: (c) => ({ KeyId: c.second }) },
  { name: 'DescribeKey after CancelKeyDeletion', target: 'DescribeKey', body: (c) => ({ KeyId: c.second }) },
  {
    name: 'DescribeKey of an unknown key id',
    target: 'DescribeKey',
    body: () => ({ KeyId: randomUUID() }),
    refusal: 'NotFoundException',
  },
  {
    name: 'Decrypt a tampered ciphertext',
    target: 'Decrypt',
    body: (c) => {
      const tampered = Buffer.from(c.ciphertext!, 'base64');
      tampered[tampered.length - 1]! ^= 1;
      return { CiphertextBlob: b64(tampered), EncryptionContext: { purpose: 'shapes' } };
    },
    refusal: 'InvalidCiphertextException',
  },
  {
    name: 'DescribeKey of a KeyId that is no id, ARN or alias',
    target: 'DescribeKey',
    body: () => ({ KeyId: 'not-a-key' }),
    refusal: 'NotFoundException',
  },
];

t.test('the AWS door answers with the structure moto answers', async (t) => {
  const m = moto(t);
  if (!m) return;
  const svc = await startTestService();
  t.teardown(() => svc.stop());
  const doorKey = await accessKeyFor(svc, 'alice');
  const alias = `alias/shapes-${randomUUID()}`;
  const endpoints = {
    door: {
      call: (target: string, body: unknown) =>
        awsRequest(`${svc.url}/aws/kms`, doorKey, target, JSON.stringify(body), { region: MOTO_REGION }),
      context: { alias, arnPrefix: `arn:aws:kms:${MOTO_REGION}:000000000000` } as Context,
    },
    moto: {
      call: (target: string, body: unknown) =>
        awsRequest(m.endpoint, { accessKeyId: 'testing', secretAccessKey: 'testing' }, target, JSON.stringify(body), {
          region: MOTO_REGION,
        }),
      context: { alias, arnPrefix: `arn:aws:kms:${MOTO_REGION}:123456789012` } as Context,
    },
  };
  const used = new Set<string>();

  for (const step of STEPS) {
    const answers: Record<'door' | 'moto', RawAnswer> = {} as never;
    for (const side of ['door', 'moto'] as const) {
      const { call, context } = endpoints[side];
      const answer = await call(step.target, step.body(context));
      answers[side] = answer;
      if (answer.status === 200 && step.keep) step.keep(answer.body, context);
    }
    const { door, moto: fromMoto } = answers;
    const allowed = MOTO_DIFFERS[step.name];
    if (allowed) used.add(step.name);
    t.test(step.name, async (t) => {
      t.ok(door.status < 500, `the door answers no 5xx (${door.status})`);
      t.notOk(hasNull(door.body), 'the door answers no null member');
      if (step.refusal) {
        t.equal(exceptionOf(door), step.refusal, `the door refuses with ${step.refusal}`);
        t.equal(door.status, 400);
        t.ok(typeof door.body?.message === 'string', "AWS's error shape: __type and message");
        if (allowed?.motoAccepts) {
          t.equal(step.refusal, allowed.motoAccepts.door);
          if (fromMoto.status !== 200)
            t.comment(`MOTO_DIFFERS['${step.name}'] is stale: moto now refuses it (${exceptionOf(fromMoto)})`);
          return;
        }
        t.same(
          { status: fromMoto.status, exception: exceptionOf(fromMoto) },
          { status: door.status, exception: exceptionOf(door) },
          'moto refuses it the same way',
        );
      } else {
        t.equal(door.status, 200, `the door answers 200 ${door.status === 200 ? '' : JSON.stringify(door.body)}`);
        t.equal(
          fromMoto.status,
          200,
          `moto answers 200 ${fromMoto.status === 200 ? '' : JSON.stringify(fromMoto.body)}`,
        );
      }
      const doorShape = shapeOf(door.body ?? {});
      const motoShape = shapeOf(withoutNulls(fromMoto.body) ?? {});
      const unexplained: string[] = [];
      for (const [path, type] of doorShape) {
        const theirs = motoShape.get(path);
        if (theirs === undefined) {
          if (!allowed?.onlyDoor?.includes(path)) unexplained.push(`only the door answers ${path} (${type})`);
        } else if (theirs !== type) unexplained.push(`${path} is ${type} from the door, ${theirs} from moto`);
      }
      for (const [path, type] of motoShape)
        if (!doorShape.has(path) && !allowed?.onlyMoto?.includes(path))
          unexplained.push(`only moto answers ${path} (${type})`);
      for (const path of [...(allowed?.onlyDoor ?? []), ...(allowed?.onlyMoto ?? [])])
        if (doorShape.has(path) === motoShape.has(path))
          t.comment(`MOTO_DIFFERS['${step.name}'] lists ${path}, which is no longer a difference`);
      t.same(unexplained, [], 'no difference but the ones MOTO_DIFFERS explains');
    });
  }

  t.test('every entry of MOTO_DIFFERS names a step of the sequence', async (t) => {
    t.same(
      Object.keys(MOTO_DIFFERS).filter((name) => !used.has(name)),
      [],
    );
  });
});
