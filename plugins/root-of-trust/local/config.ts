import { Type } from '@sinclair/typebox';
import { defineSettings } from '../../../kernel/index.ts';
import { sqliteFile } from '../../sql-support/config.ts';
import { rootOfTrustCrypto } from '../support/root-of-trust-config.ts';

/** The local KEK, and the journal file beside which it is kept when none is configured. */
export const localKekSettings = defineSettings(
  Type.Object({
    ...sqliteFile.properties,
    crypto: Type.Object({
      ...rootOfTrustCrypto,
      localKek: Type.String({
        description:
          'in-memory root of trust: base64 of the 32-byte KEK. Without it: a file beside journal.db (rdb-embedded) or random per process (in-memory journal).',
        default: '',
        env: 'SVC_CRYPTO_LOCAL_KEK',
        sensitive: true,
      }),
    }),
  }),
);
