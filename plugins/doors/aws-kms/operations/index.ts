import type { AwsOperationDef } from '../aws-call.ts';
import { aliasOperations } from './aliases.ts';
import { cryptoOperations } from './crypto.ts';
import { importOperations } from './import.ts';
import { keyOperations } from './keys.ts';
import { signingOperations } from './signing.ts';

/** Every AWS KMS operation the door answers, by the name in X-Amz-Target (TrentService.NAME). */
export const AWS_OPERATIONS: Record<string, AwsOperationDef> = {
  ...keyOperations,
  ...cryptoOperations,
  ...signingOperations,
  ...aliasOperations,
  ...importOperations,
};
