import { defineConfig } from '../../../kernel/index.ts';
import { httpsUrlSetting } from '../../net-support/safe-url.ts';

/** Earlier local KEKs: read by the local root of trust, and by cloud-kms while moving off the local one. */
export const localPreviousKeks = defineConfig({
  crypto: {
    previousKeks: { doc: 'Earlier local KEKs (comma-separated base64) that still unwrap until `rewrap` has moved every key to the current KEK (also when the current one is in cloud-kms or pkcs11).', format: String, default: '', env: 'SVC_CRYPTO_LOCAL_PREVIOUS_KEKS', sensitive: true },
  },
});

/** The cloud KMS settings: the cloud-kms root of trust's, and the local one's while moving off cloud-kms. */
export const cloudKmsConfig = defineConfig({
  crypto: {
    cloudKms: {
      region: { doc: 'cloud-kms region; required when crypto.kind is cloud-kms.', format: String, default: '', env: 'SVC_CRYPTO_CLOUD_KMS_REGION' },
      kekArn: { doc: 'cloud-kms: ARN of the KMS key (the KEK) that wraps every key-wrapping key; required when crypto.kind is cloud-kms.', format: String, default: '', env: 'SVC_CRYPTO_CLOUD_KMS_KEK_ARN' },
      previousKekArns: { doc: 'Earlier KEK ARNs (comma-separated) that still unwrap until `rewrap` has moved every key to the current KEK (also when the current one is local or pkcs11).', format: String, default: '', env: 'SVC_CRYPTO_CLOUD_KMS_PREVIOUS_KEK_ARNS' },
      endpoint: httpsUrlSetting('cloud-kms endpoint override (an emulator, a VPC endpoint): https://, or http:// to a loopback host only; empty uses the region\'s.', 'SVC_CRYPTO_CLOUD_KMS_ENDPOINT'),
      timeoutMs: { doc: 'Time limit of one KMS call; past it the operation answers 503 with Retry-After.', format: 'nat', default: 5000, env: 'SVC_CRYPTO_CLOUD_KMS_TIMEOUT_MS' },
    },
  },
});
