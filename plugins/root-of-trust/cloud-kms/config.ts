import { defineConfig } from '../../../kernel/config-values.ts';

export const cloudKmsConfig = defineConfig({
  crypto: {
    cloudKms: {
      region: { doc: 'cloud-kms region; required when crypto.kind is cloud-kms.', format: String, default: '', env: 'SVC_CRYPTO_CLOUD_KMS_REGION' },
      kekArn: { doc: 'cloud-kms: ARN of the KMS key (the KEK) that wraps every key-wrapping key; required when crypto.kind is cloud-kms.', format: String, default: '', env: 'SVC_CRYPTO_CLOUD_KMS_KEK_ARN' },
      previousKekArns: { doc: 'cloud-kms: earlier KEK ARNs (comma-separated) that still unwrap until `rewrap` has moved every key to the current one.', format: String, default: '', env: 'SVC_CRYPTO_CLOUD_KMS_PREVIOUS_KEK_ARNS' },
      endpoint: { doc: 'cloud-kms endpoint override (an emulator, a VPC endpoint); empty uses the region\'s.', format: String, default: '', env: 'SVC_CRYPTO_CLOUD_KMS_ENDPOINT' },
      timeoutMs: { doc: 'Time limit of one KMS call; past it the operation answers 503 with Retry-After.', format: 'nat', default: 5000, env: 'SVC_CRYPTO_CLOUD_KMS_TIMEOUT_MS' },
    },
  },
});
