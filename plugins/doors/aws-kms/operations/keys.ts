import { isSvcError, SvcError } from '../../../../kernel/index.ts';
import type { AwsCall, AwsOperationDef } from '../aws-call.ts';
import { bool, integer, text, tagList, type AwsInput } from '../aws-input.ts';
import { keyArn, keyReference } from '../key-references.ts';
import { DESCRIPTION_TAG, keyMetadata, type KeyView } from '../key-metadata.ts';
import { keySpecFor } from '../key-specs.ts';

const MAX_DESCRIPTION = 256;

/** The key a KeyId names, as the service reads it (GetKey); a destroyed key is gone, as in AWS. */
export async function describe(input: AwsInput, call: AwsCall): Promise<KeyView> {
  const { result } = await call.run<KeyView>('GetKey', () => ({ id: keyReference(call, text(input, 'KeyId')) }));
  if (result.state === 'Destroyed') throw new SvcError('KeyNotFound', `key ${result.id} was deleted`);
  return result;
}

function createSpec(input: AwsInput) {
  const origin = text(input, 'Origin', 'optional') ?? 'AWS_KMS';
  if (origin !== 'AWS_KMS' && origin !== 'EXTERNAL')
    throw new SvcError('FeatureNotSupported', `Origin ${origin} is not offered; use AWS_KMS or EXTERNAL`);
  if (bool(input, 'MultiRegion')) throw new SvcError('FeatureNotSupported', 'multi-Region keys are not offered');
  if (text(input, 'CustomKeyStoreId', 'optional') !== undefined)
    throw new SvcError('FeatureNotSupported', 'custom key stores are not offered: keys live under the root of trust');
  const keySpec =
    text(input, 'KeySpec', 'optional') ?? text(input, 'CustomerMasterKeySpec', 'optional') ?? 'SYMMETRIC_DEFAULT';
  const entry = keySpecFor(keySpec, text(input, 'KeyUsage', 'optional'));
  const description = text(input, 'Description', 'optional');
  if (description !== undefined && description.length > MAX_DESCRIPTION)
    throw new SvcError('InvalidField', `Description must be at most ${MAX_DESCRIPTION} characters here`);
  const tags = { ...tagList(input, 'Tags'), ...(description ? { [DESCRIPTION_TAG]: description } : {}) };
  return { spec: { ...entry.spec, ...(Object.keys(tags).length ? { tags } : {}) }, external: origin === 'EXTERNAL' };
}

export const keyOperations: Record<string, AwsOperationDef> = {
  CreateKey: {
    primary: 'CreateKey',
    // The key is made Active in the same step (AWS keys are usable at once); the caller needs Activate too.
    run: async (input, call) => {
      const { result } = await call.run<KeyView>('CreateKey', () => {
        const { spec, external } = createSpec(input);
        // EXTERNAL: a key without material, PendingImport until ImportKeyMaterial makes it Enabled.
        return external ? { spec, awaitMaterial: true } : { spec, activate: true };
      });
      return { KeyMetadata: keyMetadata(call, result) };
    },
  },
  DescribeKey: {
    primary: 'GetKey',
    run: async (input, call) => ({ KeyMetadata: keyMetadata(call, await describe(input, call)) }),
  },
  ListKeys: {
    primary: 'LocateKeys',
    run: async (input, call) => {
      const { result } = await call.run<{ keys: KeyView[]; nextCursor?: string }>('LocateKeys', () => ({
        limit: integer(input, 'Limit', 1, 1000) ?? 100,
        ...(text(input, 'Marker', 'optional') ? { cursor: text(input, 'Marker') } : {}),
      }));
      return {
        Keys: result.keys
          .filter((k) => k.state !== 'Destroyed')
          .map((k) => ({ KeyId: k.id, KeyArn: keyArn(call, k.id) })),
        Truncated: result.nextCursor !== undefined,
        ...(result.nextCursor ? { NextMarker: result.nextCursor } : {}),
      };
    },
  },
  EnableKey: {
    primary: 'EnableKey',
    // AWS's EnableKey makes a key encrypt again; a Deactivated or Compromised key never does here, so it
    // is refused rather than answered as if it had worked.
    run: async (input, call) => {
      const key = await describe(input, call);
      // Refused inside the call, so the refusal is authorized and audited as EnableKey's.
      await call.run('EnableKey', () => {
        if (key.state !== 'Active' && key.state !== 'PreActive')
          throw new SvcError(
            'IllegalOperation',
            `key ${key.id} is ${key.state} (revoked, or its deletion was scheduled and cancelled): it decrypts and ` +
              'verifies what it made but never encrypts or signs again; create a new key',
          );
        return { id: key.id };
      });
      return {};
    },
  },
  DisableKey: {
    primary: 'DisableKey',
    run: async (input, call) => {
      await call.run('DisableKey', () => ({ id: keyReference(call, text(input, 'KeyId')) }));
      return {};
    },
  },
  ScheduleKeyDeletion: {
    primary: 'DestroyKey',
    run: async (input, call) => {
      let days: number;
      try {
        days = integer(input, 'PendingWindowInDays', 7, 30) ?? 30;
      } catch (err) {
        // A bad window is refused (and audited) as DestroyKey's input before the key is read or changed.
        await call.run('DestroyKey', () => {
          throw err;
        });
        throw err;
      }
      const key = await describe(input, call);
      const schedule = () => call.run<{ destroyAt: string }>('DestroyKey', () => ({ id: key.id, waitingDays: days }));
      let scheduled: Awaited<ReturnType<typeof schedule>>;
      try {
        scheduled = await schedule();
      } catch (err) {
        // The service destroys only keys that no longer encrypt: an Active key's schedule is refused for its
        // state once the caller's Destroy was authorized, and only then is the key deactivated (for good) and
        // the schedule asked again, so a caller without Destroy changes nothing.
        if (!(isSvcError(err) && err.code === 'IllegalOperation' && key.state === 'Active')) throw err;
        await call.run('RevokeKey', () => ({ id: key.id, reason: 'scheduled for deletion (AWS ScheduleKeyDeletion)' }));
        scheduled = await schedule();
      }
      const { result } = scheduled;
      return {
        KeyId: keyArn(call, key.id),
        DeletionDate: Date.parse(result.destroyAt) / 1000,
        KeyState: 'PendingDeletion',
        PendingWindowInDays: days,
      };
    },
  },
  CancelKeyDeletion: {
    primary: 'CancelDestroy',
    run: async (input, call) => {
      const { input: ran } = await call.run('CancelDestroy', () => ({ id: keyReference(call, text(input, 'KeyId')) }));
      return { KeyId: keyArn(call, String(ran.id)) };
    },
  },
  RotateKeyOnDemand: {
    primary: 'RotateKey',
    run: async (input, call) => {
      const { input: ran } = await call.run('RotateKey', () => ({ id: keyReference(call, text(input, 'KeyId')) }));
      return { KeyId: String(ran.id) };
    },
  },
  TagResource: {
    primary: 'TagKey',
    run: async (input, call) => {
      await call.run('TagKey', () => ({
        id: keyReference(call, text(input, 'KeyId')),
        tags: tagList(input, 'Tags') ?? {},
      }));
      return {};
    },
  },
  UntagResource: {
    primary: 'UntagKey',
    run: async (input, call) => {
      await call.run('UntagKey', () => {
        const keys = (input.TagKeys === undefined ? [] : (input.TagKeys as unknown[])) as string[];
        if (!Array.isArray(keys) || keys.length === 0 || keys.some((k) => typeof k !== 'string'))
          throw new SvcError('InvalidField', 'TagKeys must be a non-empty list of strings');
        if (keys.some((k) => k.startsWith('aws:'))) throw new SvcError('InvalidField', 'the aws: prefix is reserved');
        // The service takes the keys as one comma-separated list: a comma inside one would name two.
        if (keys.some((k) => k.includes(','))) throw new SvcError('InvalidField', 'a TagKey holds no comma');
        return { id: keyReference(call, text(input, 'KeyId')), keys: keys.join(',') };
      });
      return {};
    },
  },
  ListResourceTags: {
    primary: 'GetKey',
    run: async (input, call) => {
      const key = await describe(input, call);
      const tags = Object.entries(key.tags)
        .filter(([k]) => k !== DESCRIPTION_TAG)
        .map(([TagKey, TagValue]) => ({ TagKey, TagValue }));
      return { Tags: tags, Truncated: false };
    },
  },
};
