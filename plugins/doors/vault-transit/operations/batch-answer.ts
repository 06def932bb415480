import { isSvcError } from '../../../../kernel/index.ts';
import { VaultError } from '../vault-errors.ts';
import { type VaultInput, whole } from '../vault-input.ts';
import type { VaultAnswer } from '../vault-route.ts';

/** One item of `batch_results`: the single call's answer, or `{error}`. */
export type BatchItem = Record<string, unknown>;

/** An item's failure as Vault writes it in its place; an unexpected failure still fails the request. */
export function itemError(err: unknown): BatchItem {
  if (err instanceof VaultError || isSvcError(err)) return { error: err.message };
  throw err;
}

/**
 * `batch_results` in the items' order, each with the `reference` its item gave. As Vault: any failed
 * item makes the answer 400, or `partial_failure_response_code` when some items succeeded.
 */
export function answerBatch(items: VaultInput[], answers: BatchItem[], body: VaultInput): VaultAnswer {
  const results = answers.map((answer, i) =>
    items[i]!.reference !== undefined ? { ...answer, reference: items[i]!.reference } : answer,
  );
  const failed = answers.filter((a) => 'error' in a).length;
  if (failed === 0) return { data: { batch_results: results } };
  const partial = whole(body, 'partial_failure_response_code');
  const status = failed < answers.length && partial !== undefined && partial >= 200 && partial <= 599 ? partial : 400;
  return { data: { batch_results: results }, status };
}
