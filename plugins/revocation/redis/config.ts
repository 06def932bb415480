import { defineConfig } from '../../../kernel/index.ts';

export const redisRevocationConfig = defineConfig({
  revocation: {
    kvUri: { doc: 'kv-store URI; required when revocation.kind is kv-store.', format: String, default: '', env: 'SVC_REVOCATION_KV_URI', sensitive: true },
    kvKeyPrefix: { doc: 'kv-store key prefix.', format: String, default: 'svc:revoked:', env: 'SVC_REVOCATION_KV_KEY_PREFIX' },
  },
});
