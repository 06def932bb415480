import { isAlias, SvcError } from '../../../kernel/index.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
// Any AWS partition (aws, aws-cn, aws-us-gov); the region is whatever the caller signed for.
const ARN = /^arn:aws[a-z-]*:kms:([a-z0-9-]{1,64}):(\d{12}):((?:key|alias)\/.+)$/;

/** Where the door is: the region the request was signed for, and the deployment's account. */
export interface ArnScope {
  region: string;
  accountId: string;
}

export const keyArn = (scope: ArnScope, keyId: string) => `arn:aws:kms:${scope.region}:${scope.accountId}:key/${keyId}`;
export const aliasArn = (scope: ArnScope, alias: string) => `arn:aws:kms:${scope.region}:${scope.accountId}:${alias}`;

/**
 * A KeyId as AWS accepts it (a key id, a key ARN, `alias/NAME` or an alias ARN) as the service's key
 * reference: the key id, or the alias for the pipeline to resolve. An ARN of another account names no
 * key here; anything else is AWS's NotFoundException ("Invalid keyId").
 */
export function keyReference(scope: ArnScope, value: string): string {
  const arn = ARN.exec(value);
  if (arn) {
    if (arn[2] !== scope.accountId)
      throw new SvcError('KeyNotFound', `${value} is in account ${arn[2]}; this service is account ${scope.accountId}`);
    return reference(arn[3]!.startsWith('key/') ? arn[3]!.slice(4) : arn[3]!, value);
  }
  return reference(value, value);
}

function reference(id: string, asSent: string): string {
  if (UUID.test(id) || isAlias(id)) return id;
  throw new SvcError('KeyNotFound', `Invalid keyId '${asSent}': a key id, key ARN, alias/NAME or alias ARN`);
}

/** An alias name as CreateAlias/UpdateAlias/DeleteAlias take it (`alias/NAME`, never an ARN). */
export function aliasName(value: string): string {
  if (isAlias(value)) return value;
  throw new SvcError('InvalidField', `AliasName must be alias/NAME (1..250 of A-Za-z0-9/_-, not alias/aws/): ${value}`);
}
