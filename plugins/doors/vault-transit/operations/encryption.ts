import { isSvcError, SvcError } from '../../../../kernel/index.ts';
import { encryptionContext, parseVersioned, versioned } from '../transit-text.ts';
import { invalid } from '../vault-errors.ts';
import { batchItems, keyVersion, refuseOptions, requiredText, text, type VaultInput, whole } from '../vault-input.ts';
import { aliasOf, type RouteRequest, type VaultAnswer, type VaultRoute } from '../vault-route.ts';
import { answerBatch, type BatchItem, itemError } from './batch-answer.ts';
import { createKey } from './keys.ts';

interface Sealed {
  ciphertextBase64: string;
  keyVersion: number;
}
interface Opened {
  plaintextBase64: string;
  keyVersion: number;
}
type Results<T> = { results: Array<T | { error: string; message: string }> };

const SOURCES = ['platform', 'all', 'seal'];

const ENCRYPT_OPTIONS = {
  nonce: 'every encryption here takes a fresh nonce',
  convergent_encryption: 'every encryption here takes a fresh nonce',
  associated_data: 'give the data to bind as context',
};

// The service encrypts with the latest version only; Vault's key_version picks an older one.
function latestOnly(input: VaultInput): void {
  if (keyVersion(input) !== undefined) throw invalid('key_version: the service encrypts with the latest version only');
}

const plainItem = (item: VaultInput) => {
  latestOnly(item);
  refuseOptions(item, ENCRYPT_OPTIONS);
  const context = encryptionContext(text(item, 'context'));
  return { plaintextBase64: text(item, 'plaintext') ?? '', ...(context ? { context } : {}) };
};

const sealedItem = (item: VaultInput) => {
  const context = encryptionContext(text(item, 'context'));
  return {
    ciphertextBase64: parseVersioned(requiredText(item, 'ciphertext'), 'ciphertext').base64,
    ...(context ? { context } : {}),
  };
};

const sealedAnswer = (r: Sealed) => ({
  ciphertext: versioned(r.keyVersion, r.ciphertextBase64),
  key_version: r.keyVersion,
});

/**
 * A decrypted ciphertext's `vault:v<n>:` must name the version that made it, as in Vault (where n picks
 * the version): a relabelled one would hide from a sweep that rewraps every ciphertext below a version
 * before a trim. Checked on the service's answer, which names the version; the plaintext is not answered.
 */
export function checkLabel(item: VaultInput, madeBy: number): void {
  const { version } = parseVersioned(requiredText(item, 'ciphertext'), 'ciphertext');
  if (version !== madeBy)
    throw invalid(
      `the ciphertext is labelled vault:v${version}: but version ${madeBy} made it; label it vault:v${madeBy}:`,
    );
}

/** `partial_failure_response_code`, checked before a batch runs (an HTTP status of 200..599). */
function checkPartialCode(body: VaultInput): void {
  const code = whole(body, 'partial_failure_response_code');
  if (code !== undefined && (code < 200 || code > 599))
    throw invalid('partial_failure_response_code must be an HTTP status, 200..599');
}

/**
 * Runs a single call or a batch of `operationId`, which takes `{id, items}` as one pipeline call (one
 * audit record for the batch, as over REST). An item the door cannot translate is answered in its place
 * without reaching the service; a batch of only such items is refused through the pipeline, so it is
 * authorized and audited all the same. `toAnswer` may refuse a result (an item's answer is then its error).
 */
export async function singleOrBatch<T>(
  request: RouteRequest,
  operationId: string,
  toInput: (item: VaultInput) => Record<string, unknown>,
  toAnswer: (result: T, item: VaultInput) => Record<string, unknown>,
): Promise<VaultAnswer> {
  const { call, params, body } = request;
  let items: VaultInput[] | undefined;
  try {
    items = batchItems(body);
    if (items) checkPartialCode(body);
  } catch (err) {
    return call.refuse(operationId, err);
  }
  if (!items) {
    const result = await call.run<T>(operationId, () => ({ id: aliasOf(params.name), ...toInput(body) }));
    return { data: toAnswer(result, body) };
  }
  const answers: BatchItem[] = items.map(() => ({}));
  const sent: Array<{ at: number; input: Record<string, unknown> }> = [];
  items.forEach((item, at) => {
    try {
      sent.push({ at, input: toInput(item) });
    } catch (err) {
      answers[at] = itemError(err);
    }
  });
  if (sent.length === 0) {
    const refusal = new SvcError('InvalidField', `every batch_input item was refused; the first: ${answers[0]!.error}`);
    await call.refuse(operationId, refusal).catch((err) => {
      if (err !== refusal) throw err;
    });
    return answerBatch(items, answers, body);
  }
  const { results } = await call.run<Results<T>>(operationId, () => ({
    id: aliasOf(params.name),
    items: sent.map((s) => s.input),
  }));
  results.forEach((result, i) => {
    const { at } = sent[i]!;
    if ('error' in (result as object)) answers[at] = { error: (result as { message: string }).message };
    else {
      try {
        answers[at] = toAnswer(result as T, items[at]!);
      } catch (err) {
        answers[at] = itemError(err);
      }
    }
  });
  return answerBatch(items, answers, body);
}

/** Encrypt; as Vault, a key that does not exist yet is made (type `type`, default aes256-gcm96) when the caller may. */
async function encrypt(request: RouteRequest): Promise<VaultAnswer> {
  const run = () => singleOrBatch<Sealed>(request, 'Encrypt', plainItem, sealedAnswer);
  try {
    return await run();
  } catch (err) {
    if (!isSvcError(err) || err.code !== 'KeyNotFound') throw err;
    await createKey(request.call, request.params.name!, { type: request.body.type });
    return run();
  }
}

/** Rewrap has no batch call in the service: each item is its own call (and audit record). */
async function rewrap({ call, params, body }: RouteRequest): Promise<VaultAnswer> {
  const rewrapOne = async (item: VaultInput) => {
    const result = await call.run<Sealed & { sourceKeyVersion: number }>('Reencrypt', () => {
      latestOnly(item);
      return { id: aliasOf(params.name), ...sealedItem(item) };
    });
    checkLabel(item, result.sourceKeyVersion);
    return sealedAnswer(result);
  };
  let items: VaultInput[] | undefined;
  try {
    items = batchItems(body);
  } catch (err) {
    return call.refuse('Reencrypt', err);
  }
  if (!items) return { data: await rewrapOne(body) };
  const answers: BatchItem[] = [];
  for (const item of items) answers.push(await rewrapOne(item).catch(itemError));
  return answerBatch(items, answers, body);
}

async function dataKey({ call, params, body }: RouteRequest): Promise<VaultAnswer> {
  const kind = params.type;
  const result = await call.run<Sealed & { plaintextBase64?: string }>('GenerateDataKey', () => {
    if (kind !== 'plaintext' && kind !== 'wrapped') throw invalid('the data key type is plaintext or wrapped');
    latestOnly(body);
    refuseOptions(body, { nonce: ENCRYPT_OPTIONS.nonce });
    const bits = whole(body, 'bits') ?? 256;
    if (bits !== 128 && bits !== 192 && bits !== 256) throw invalid('bits must be 128, 192 or 256 here');
    const context = encryptionContext(text(body, 'context'));
    return {
      id: aliasOf(params.name),
      sizeBits: bits,
      plaintext: kind === 'plaintext',
      ...(context ? { context } : {}),
    };
  });
  return {
    data: {
      ...(result.plaintextBase64 !== undefined ? { plaintext: result.plaintextBase64 } : {}),
      ...sealedAnswer(result),
    },
  };
}

async function random({ call, params, body }: RouteRequest): Promise<VaultAnswer> {
  const { randomBase64 } = await call.run<{ randomBase64: string }>('GenerateRandom', () => {
    // random/platform is a source, random/64 a size: the one optional segment is either.
    const [source, size] =
      params.bytes !== undefined && !/^\d+$/.test(params.bytes) && params.source === undefined
        ? [params.bytes, undefined]
        : [params.source, params.bytes];
    if (source !== undefined && !SOURCES.includes(source))
      throw invalid('the source is platform, seal or all (the service has one generator)');
    const fromPath = size === undefined ? undefined : whole({ bytes: size }, 'bytes');
    const format = text(body, 'format') ?? 'base64';
    if (format !== 'base64' && format !== 'hex') throw invalid('format must be base64 or hex');
    return { sizeBytes: fromPath ?? whole(body, 'bytes') ?? 32 };
  });
  const bytes = Buffer.from(randomBase64, 'base64');
  return { data: { random_bytes: text(body, 'format') === 'hex' ? bytes.toString('hex') : randomBase64 } };
}

export const encryptionRoutes: VaultRoute[] = [
  { method: 'POST', path: 'encrypt/:name', primary: 'Encrypt', run: encrypt },
  {
    method: 'POST',
    path: 'decrypt/:name',
    primary: 'Decrypt',
    run: (request) =>
      singleOrBatch<Opened>(request, 'Decrypt', sealedItem, (r, item) => {
        checkLabel(item, r.keyVersion);
        return { plaintext: r.plaintextBase64 };
      }),
  },
  { method: 'POST', path: 'rewrap/:name', primary: 'Reencrypt', run: rewrap },
  { method: 'POST', path: 'datakey/:type/:name', primary: 'GenerateDataKey', run: dataKey },
  { method: 'POST', path: 'random/:bytes?', primary: 'GenerateRandom', run: random },
  { method: 'POST', path: 'random/:source/:bytes', primary: 'GenerateRandom', run: random },
];
