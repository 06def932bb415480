import { isSvcError, SvcError } from '../../../../kernel/index.ts';
import type { AwsCall, AwsOperationDef } from '../aws-call.ts';
import { AwsError } from '../aws-errors.ts';
import { integer, text, type AwsInput } from '../aws-input.ts';
import { aliasArn, aliasName, keyReference } from '../key-references.ts';

interface Alias {
  name: string;
  keyId: string;
  createdAt: string;
}

/** TargetKeyId names a key by id or key ARN, never by another alias (as in AWS). */
function target(call: AwsCall, input: AwsInput): string {
  const reference = keyReference(call, text(input, 'TargetKeyId'));
  if (reference.startsWith('alias/')) throw new SvcError('InvalidField', 'TargetKeyId must be a key id or key ARN');
  return reference;
}

async function putAlias(input: AwsInput, call: AwsCall, createOnly: boolean) {
  try {
    await call.run('PutAlias', () => ({
      name: aliasName(text(input, 'AliasName')),
      keyId: target(call, input),
      ...(createOnly ? { createOnly: true } : {}),
    }));
  } catch (err) {
    if (createOnly && isSvcError(err) && err.code === 'IllegalOperation' && /already names a key/.test(err.message))
      throw new AwsError('AlreadyExistsException', `An alias with the name ${text(input, 'AliasName')} already exists`);
    throw err;
  }
  return {};
}

export const aliasOperations: Record<string, AwsOperationDef> = {
  CreateAlias: { primary: 'PutAlias', run: (input, call) => putAlias(input, call, true) },
  UpdateAlias: { primary: 'PutAlias', run: (input, call) => putAlias(input, call, false) },
  DeleteAlias: {
    primary: 'DeleteAlias',
    run: async (input, call) => {
      await call.run('DeleteAlias', () => ({ name: aliasName(text(input, 'AliasName')) }));
      return {};
    },
  },
  ListAliases: {
    primary: 'ListAliases',
    run: async (input, call) => {
      const { result } = await call.run<{ aliases: Alias[]; nextAfter?: string }>('ListAliases', () => {
        const keyId = text(input, 'KeyId', 'optional');
        const marker = text(input, 'Marker', 'optional');
        return {
          ...(keyId !== undefined ? { keyId: keyReference(call, keyId) } : {}),
          ...(marker !== undefined ? { after: marker } : {}),
          limit: integer(input, 'Limit', 1, 1000) ?? 100,
        };
      });
      return {
        Aliases: result.aliases.map((a) => ({
          AliasName: a.name,
          AliasArn: aliasArn(call, a.name),
          TargetKeyId: a.keyId,
          CreationDate: Date.parse(a.createdAt) / 1000,
          LastUpdatedDate: Date.parse(a.createdAt) / 1000,
        })),
        Truncated: result.nextAfter !== undefined,
        ...(result.nextAfter ? { NextMarker: result.nextAfter } : {}),
      };
    },
  },
};
