import { type KeyJournal, type Logger, type RootOfTrust, SvcError, type WrappedKey } from '../../kernel/index.ts';

/** Stored KWKs not under the current KEK that the check reads at most. */
const SAMPLE = 1000;
/** Keys looked at at most to find one whose KWK is under the current KEK. */
const CURRENT_LOOKUPS = 50;

const outage = (err: unknown) => err instanceof SvcError && err.code === 'ServiceUnavailable';

/**
 * Proves at start that the configured root of trust opens the key-wrapping keys already stored, so that
 * a wrong KEK (a kek.key restored from another node, a mistyped SVC_CRYPTO_LOCAL_KEK, another KEK ARN)
 * stops the boot with a sentence instead of booting and answering 500 to every call that needs a key.
 *
 * 1. Every KEK that a stored KWK is under must be one the root of trust holds (the current KEK or a
 *    listed previous one): read from the first SAMPLE KWKs not under the current KEK.
 * 2. One KWK under each held KEK that the journal uses must really unwrap.
 *
 * An outage is not a wrong KEK: a root of trust that cannot be reached or whose KEK is disabled (SvcError
 * ServiceUnavailable) lets the boot go on with a warning; calls answer 503 and /readyz reports the
 * `rootOfTrust` check until it recovers, without a restart.
 */
export async function checkStoredKwksOpen(
  journal: KeyJournal,
  rootOfTrust: RootOfTrust,
  logger: Pick<Logger, 'warn'>,
): Promise<void> {
  const current = rootOfTrust.currentKekId();
  const held = new Set(rootOfTrust.kekIds());
  const samples = new Map<string, { keyId: string; wrapped: WrappedKey }>();
  for (const stored of await journal.kwksNotUnder(current, SAMPLE)) {
    const kekId = stored.wrapped.kekId;
    if (!held.has(kekId)) {
      const note = rootOfTrust.kekNote?.();
      throw new Error(
        `${note ? `${note} The` : 'the'} configured KEK (${current}) cannot unwrap the stored key-wrapping keys: key ${stored.keyId}'s is under KEK ${kekId}, which is neither the configured KEK nor a listed previous one. ` +
          ('Configure the KEK these keys were written with (its kek.key, ' +
            'SVC_CRYPTO_LOCAL_KEK, SVC_CRYPTO_CLOUD_KMS_KEK_ARN or ' +
            'SVC_CRYPTO_PKCS11_KEK_LABEL), or list it as a previous KEK ' +
            '(SVC_CRYPTO_LOCAL_PREVIOUS_KEKS, ' +
            'SVC_CRYPTO_CLOUD_KMS_PREVIOUS_KEK_ARNS, ' +
            'SVC_CRYPTO_PKCS11_PREVIOUS_KEK_LABELS) and run rewrap'),
      );
    }
    if (!samples.has(kekId)) samples.set(kekId, stored);
  }
  const underCurrent = await oneUnder(journal, current);
  if (underCurrent) samples.set(current, underCurrent);
  for (const [kekId, { keyId, wrapped }] of samples) {
    try {
      (await rootOfTrust.unwrap(wrapped, keyId)).fill(0);
    } catch (err) {
      if (outage(err)) {
        logger.warn('the root of trust cannot be used now; calls that need it answer 503 until it can', {
          kekId,
          error: (err as Error).message,
        });
        return;
      }
      throw new Error(
        `the KEK ${kekId} cannot unwrap the stored key-wrapping key of key ${keyId} (${(err as Error).message}): the configured KEK is not the one these keys were written with`,
      );
    }
  }
}

async function oneUnder(
  journal: KeyJournal,
  kekId: string,
): Promise<{ keyId: string; wrapped: WrappedKey } | undefined> {
  for (const keyId of (await journal.keyIds()).slice(0, CURRENT_LOOKUPS)) {
    const wrapped = await journal.getKwk(keyId);
    if (wrapped?.kekId === kekId) return { keyId, wrapped };
  }
  return undefined;
}
