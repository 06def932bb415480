import { defineConfig } from '../../../kernel/index.ts';
import { sqliteFile } from '../../sql-support/config.ts';
import { cloudKmsConfig, localPreviousKeks } from '../support/cloud-kms-config.ts';
import { pkcs11Config } from '../support/pkcs11-config.ts';

/** The local KEK, and the journal file beside which it is kept when none is configured. */
export const localKekConfig = defineConfig({
  ...sqliteFile,
  crypto: {
    ...localPreviousKeks.crypto,
    ...cloudKmsConfig.crypto,
    ...pkcs11Config.crypto,
    localKek: { doc: 'in-memory root of trust: base64 of the 32-byte KEK. Without it: a file beside journal.db (rdb-embedded) or random per process (in-memory journal).', format: String, default: '', env: 'SVC_CRYPTO_LOCAL_KEK', sensitive: true },
  },
});
