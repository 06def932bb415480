import { Type } from '@sinclair/typebox';
import { defineSettings } from '../../../kernel/index.ts';
import { cloudKmsConfig, localPreviousKeks } from './cloud-kms-config.ts';
import { pkcs11Config } from './pkcs11-config.ts';

/**
 * The crypto.* settings every root of trust declares: its own kind's, and the other kinds' whose
 * previous KEKs still unwrap while keys move off them (crypto.previousKeks, crypto.cloudKms.*,
 * crypto.pkcs11.*). The very same setting objects in every manifest, so the loader merges them.
 */
export const rootOfTrustCrypto = {
  ...localPreviousKeks.properties.crypto.properties,
  ...cloudKmsConfig.properties.crypto.properties,
  ...pkcs11Config.properties.crypto.properties,
};

/** The settings of the cloud-kms and pkcs11 roots of trust (the local one adds its KEK and journal file). */
export const rootOfTrustSettings = defineSettings(Type.Object({ crypto: Type.Object(rootOfTrustCrypto) }));
