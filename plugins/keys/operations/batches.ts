import { type AnyOperation, isSvcError, type OperationCall } from '../../../kernel/index.ts';
import { Type } from '@sinclair/typebox';
import * as B from '../../../schemas/batch.ts';
import { decodeBase64 } from '../base64.ts';
import type { KeyBatchCrypto } from '../key-batch-crypto.ts';
import { signedDataOf } from './signed-input.ts';

// An item of any batched operation, checked against that operation's own input schema first.
// biome-ignore lint/suspicious/noExplicitAny: the operation's schema types it.
type Item = Record<string, any>;
type ItemError = { error: string; message: string };
/** What a batch handler returns: each item's answer in order, and audit context of the whole batch. */
interface BatchOutcome {
  results: unknown[];
  context: Record<string, string>;
}

const b64 = (buf: Buffer) => buf.toString('base64');
/** Distinct values, in the order met, as one audit value (key versions, algorithms). */
const distinct = (values: Iterable<unknown>) =>
  [...new Set([...values].filter((v) => v !== undefined).map(String))].join(',');

/**
 * A batch gives the event loop back after this much work: a thousand RSA signatures are seconds of CPU,
 * and every other caller of the node would wait them out. Cheap batches (encrypt of small items) never
 * reach it.
 */
const YIELD_AFTER_MS = 5;

/**
 * Runs `one` for each item in order: an item's own error (bad base64, a ciphertext that does not
 * decrypt, an algorithm the key does not have) becomes its result, an unexpected one fails the call.
 */
async function eachItem(
  items: Item[],
  one: (item: Item, at: string) => unknown | Promise<unknown>,
  stillUsable: () => Promise<void>,
): Promise<{ results: unknown[]; failed: number }> {
  const results: unknown[] = new Array(items.length);
  let failed = 0;
  let since = performance.now();
  let stopped: ItemError | undefined;
  for (let i = 0; i < items.length; i++) {
    if (!stopped && performance.now() - since > YIELD_AFTER_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      // Other calls ran meanwhile: one of them may have compromised, revoked or destroyed the key.
      try {
        await stillUsable();
      } catch (err) {
        if (!isSvcError(err)) throw err;
        stopped = { error: err.code, message: err.message };
      }
      since = performance.now();
    }
    if (stopped) {
      failed++;
      results[i] = stopped;
      continue;
    }
    try {
      // Encrypt and sign answer at once: only a promise is awaited (an await per item is a microtask per item).
      const answer = one(items[i]!, `items.${i}`);
      results[i] = answer instanceof Promise ? await answer : answer;
    } catch (err) {
      if (!isSvcError(err)) throw err;
      failed++;
      results[i] = { error: err.code, message: err.message } satisfies ItemError;
    }
  }
  return { results, failed };
}

/**
 * `input` of a sign or verify batch in which some item was a digest (`digest`, or `message,digest` when
 * both were): as the single call, a batch of messages only reads as before.
 */
const inputsContext = (inputs: Set<string>): Record<string, string> =>
  inputs.has('digest') ? { input: inputs.has('message') ? 'message,digest' : 'digest' } : {};

const batchContext = (items: number, failed: number, extra: Record<string, string>) => ({
  ...extra,
  'batch.items': String(items),
  'batch.failed': String(failed),
});

type BatchHandler = (batch: KeyBatchCrypto, id: string, items: Item[], call: OperationCall) => Promise<BatchOutcome>;

const HANDLERS: Record<
  string,
  { input: typeof B.EncryptBatchInput; output: typeof B.EncryptBatchResponse; handle: BatchHandler }
> = {
  Encrypt: {
    input: B.EncryptBatchInput,
    output: B.EncryptBatchResponse,
    handle: async (batch, id, items, call) => {
      const encryptor = await batch.encryptor(id, call.trace);
      let plaintextLength = 0;
      const { results, failed } = await eachItem(
        items,
        (item, at) => {
          const plaintext = decodeBase64(item.plaintextBase64, `${at}.plaintextBase64`);
          const r = encryptor.encrypt(plaintext, item.context ?? {});
          plaintextLength += plaintext.length;
          return { ciphertextBase64: b64(r.ciphertext), keyVersion: r.keyVersion, algorithm: r.algorithm };
        },
        () => batch.stillUsable(id, 'produce', 'Encrypt', call.trace),
      );
      return {
        results,
        context: batchContext(items.length, failed, {
          keyVersion: String(encryptor.key.currentVersion),
          alg: encryptor.algorithm,
          plaintextLength: String(plaintextLength),
        }),
      };
    },
  },
  Decrypt: {
    input: B.DecryptBatchInput,
    output: B.DecryptBatchResponse,
    handle: async (batch, id, items, call) => {
      const decryptor = await batch.decryptor(id, call.trace);
      const versions: number[] = [];
      const { results, failed } = await eachItem(
        items,
        async (item, at) => {
          const r = await decryptor.decrypt(
            decodeBase64(item.ciphertextBase64, `${at}.ciphertextBase64`),
            item.context ?? {},
          );
          versions.push(r.keyVersion);
          return { plaintextBase64: b64(r.plaintext), keyVersion: r.keyVersion };
        },
        () => batch.stillUsable(id, 'consume', 'Decrypt', call.trace),
      );
      return { results, context: batchContext(items.length, failed, { keyVersion: distinct(versions) }) };
    },
  },
  Sign: {
    input: B.SignBatchInput,
    output: B.SignBatchResponse,
    handle: async (batch, id, items, call) => {
      const signer = await batch.signer(id, call.trace);
      const algorithms: string[] = [];
      const inputs = new Set<string>();
      const { results, failed } = await eachItem(
        items,
        async (item, at) => {
          const data = signedDataOf(item, at);
          const r = await signer.sign(data, item.algorithm);
          algorithms.push(r.algorithm);
          inputs.add(data.kind);
          return { signatureBase64: b64(r.signature), algorithm: r.algorithm, keyVersion: r.keyVersion };
        },
        () => batch.stillUsable(id, 'produce', 'Sign', call.trace),
      );
      return {
        results,
        context: batchContext(items.length, failed, {
          keyVersion: String(signer.key.currentVersion),
          alg: distinct(algorithms),
          ...inputsContext(inputs),
        }),
      };
    },
  },
  Verify: {
    input: B.VerifyBatchInput,
    output: B.VerifyBatchResponse,
    handle: async (batch, id, items, call) => {
      const verifier = await batch.verifier(id, call.trace);
      const algorithms: string[] = [];
      const versions: number[] = [];
      const inputs = new Set<string>();
      let invalid = 0;
      const { results, failed } = await eachItem(
        items,
        async (item, at) => {
          const data = signedDataOf(item, at);
          const signature = decodeBase64(item.signatureBase64, `${at}.signatureBase64`);
          const r = await verifier.verify(data, signature, item.algorithm, item.keyVersion);
          algorithms.push(r.algorithm);
          inputs.add(data.kind);
          if (r.keyVersion !== undefined) versions.push(r.keyVersion);
          if (!r.valid) invalid++;
          return r;
        },
        () => batch.stillUsable(id, 'consume', 'Verify', call.trace),
      );
      return {
        results,
        context: batchContext(items.length, failed, {
          alg: distinct(algorithms),
          keyVersion: distinct(versions),
          'batch.invalid': String(invalid),
          ...inputsContext(inputs),
        }),
      };
    },
  },
};

const isBatch = (input: unknown): input is { id: string; items: Item[] } =>
  typeof input === 'object' && input !== null && 'items' in input;

/**
 * Encrypt, decrypt, sign and verify also take `{items: [...]}`: one declaration each, whose input is
 * either the single body or a batch of them, so the OpenAPI document, the SDKs and the MCP tools
 * describe both. A batch is one call to the pipeline: authorized and risk-checked once, audited as one
 * record (`batch.items`, `batch.failed`), and it takes one unit of the caller's rate limit per item.
 */
export function withBatches(operations: AnyOperation[], batch: KeyBatchCrypto): AnyOperation[] {
  return operations.map((def): AnyOperation => {
    const batched = Object.hasOwn(HANDLERS, def.id) ? HANDLERS[def.id]! : undefined;
    if (!batched) return def;
    return {
      ...def,
      summary: `${def.summary}; or {items} for a batch of up to ${B.MAX_BATCH_ITEMS}`,
      description: `${def.description ?? def.summary} For many items at once give items: [...] (1 to ${B.MAX_BATCH_ITEMS}, each the single call's fields): the answer is results in the same order, each the single answer or {error, message} for an item that failed; each item counts against the rate limit.`,
      input: Type.Union([def.input, batched.input]),
      output: Type.Union([def.output, batched.output]),
      cost: (input: unknown) =>
        isBatch(input) && Array.isArray(input.items) ? Math.min(B.MAX_BATCH_ITEMS, Math.max(1, input.items.length)) : 1,
      // Only where the single call has facts (sign and verify have none: their calls allocate nothing here).
      ...(def.inputFacts ? { inputFacts: batchedFacts(def.inputFacts) } : {}),
      // Not async: a single call's handler answers without a promise of this wrapper's own.
      handle: (input: Item, call: OperationCall) =>
        isBatch(input) ? handleBatch(batched, batch, input, call) : def.handle(input, call),
    };
  });
}

async function handleBatch(
  batched: (typeof HANDLERS)[string],
  batch: KeyBatchCrypto,
  input: { id: string; items: Item[] },
  call: OperationCall,
) {
  const { results, context } = await batched.handle(batch, input.id, input.items, call);
  return { result: { results }, audit: { context } };
}

/** A single call's facts as they are; for a batch, the context keys any item named (names only, never values). */
function batchedFacts(single: (input: Item) => Record<string, string>): (input: Item) => Record<string, string> {
  return (input) => {
    if (!isBatch(input)) return single(input);
    const names = new Set<string>();
    for (const item of input.items) for (const name of Object.keys(item.context ?? {})) names.add(name);
    return { contextKeys: [...names].sort().join(',') };
  };
}
