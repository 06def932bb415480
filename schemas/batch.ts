import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import * as S from './keys.ts';

/** Items one batch call may carry. */
export const MAX_BATCH_ITEMS = 1000;

/** One item of a batch that failed: the error the single call would have answered. */
export const BatchItemError = Type.Object(
  {
    error: Type.String({
      description: 'the error code the single call would answer (DecryptionFailed, InvalidField, ...)',
    }),
    message: Type.String(),
  },
  { additionalProperties: false, title: 'BatchItemError' },
);

const batchInput = (item: TObject, title: string) =>
  Type.Object(
    {
      id: S.KeyId,
      items: Type.Array(item, {
        minItems: 1,
        maxItems: MAX_BATCH_ITEMS,
        description: `1 to ${MAX_BATCH_ITEMS} items, each the body of the single call; answered in the same order`,
      }),
    },
    { additionalProperties: false, title },
  );

const batchResponse = (answer: TSchema, title: string) =>
  Type.Object(
    {
      results: Type.Array(Type.Union([answer, BatchItemError]), {
        description:
          "one per item, in the items' order: the single call's answer, or {error, message} for an item that failed",
      }),
    },
    { title },
  );

export const EncryptBatchInput = batchInput(S.EncryptBody, 'EncryptBatchInput');
export const EncryptBatchResponse = batchResponse(S.EncryptResponse, 'EncryptBatchResponse');
export const DecryptBatchInput = batchInput(S.DecryptBody, 'DecryptBatchInput');
export const DecryptBatchResponse = batchResponse(S.DecryptResponse, 'DecryptBatchResponse');
export const SignBatchInput = batchInput(S.SignBody, 'SignBatchInput');
export const SignBatchResponse = batchResponse(S.SignResponse, 'SignBatchResponse');
export const VerifyBatchInput = batchInput(S.VerifyBody, 'VerifyBatchInput');
export const VerifyBatchResponse = batchResponse(S.VerifyResponse, 'VerifyBatchResponse');
