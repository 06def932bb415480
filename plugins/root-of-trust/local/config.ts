import { Type } from '@sinclair/typebox';
import { defineSettings } from '../../../kernel/index.ts';
import { sqliteFile } from '../../sql-support/config.ts';

/**
 * The local KEK, the earlier ones that still unwrap, and the journal file beside which it is kept when none is
 * configured.
 */
export const localKekSettings = defineSettings(
  Type.Object({
    ...sqliteFile.properties,
    crypto: Type.Object({
      previousKeks: Type.String({
        description:
          'Earlier local KEKs (comma-separated base64) that still unwrap until ' +
          '`rewrap` has moved every key to the current KEK (also when the current ' +
          'one is in cloud-kms or pkcs11).',
        default: '',
        env: 'SVC_CRYPTO_LOCAL_PREVIOUS_KEKS',
        sensitive: true,
      }),
      localKek: Type.String({
        description:
          'in-memory root of trust: base64 of the 32-byte KEK. Without it: a file ' +
          'beside journal.db (rdb-embedded) or random per process (in-memory journal).',
        default: '',
        env: 'SVC_CRYPTO_LOCAL_KEK',
        sensitive: true,
      }),
    }),
  }),
);

/** A finding when an earlier local KEK is not base64 of 32 bytes. */
export const badPreviousKeks = (previous: string[]) =>
  previous.some((k) => Buffer.from(k, 'base64').length !== 32)
    ? [
        {
          name: 'crypto.previousKeks',
          status: 'fail' as const,
          message: 'every entry of SVC_CRYPTO_LOCAL_PREVIOUS_KEKS must be base64 of exactly 32 bytes',
          advice: 'list the earlier SVC_CRYPTO_LOCAL_KEK values, comma-separated',
        },
      ]
    : [];
