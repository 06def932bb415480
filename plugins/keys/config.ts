import { defineConfig } from '../../kernel/index.ts';

export const keyServiceConfig = defineConfig({
  keys: {
    rotationCheckSeconds: { doc: 'How often the background timer looks for TimeBased keys that are due.', format: 'nat', default: 60, env: 'SVC_KEYS_ROTATION_CHECK_SECONDS' },
  },
  crypto: {
    cacheTtlSeconds: { doc: 'How long an unwrapped key-wrapping key stays in memory before the root of trust is asked again.', format: 'nat', default: 300, env: 'SVC_CRYPTO_CACHE_TTL_SECONDS' },
    cacheMaxEntries: { doc: 'Most unwrapped key-wrapping keys kept in memory (least recently used go first).', format: 'nat', default: 10000, env: 'SVC_CRYPTO_CACHE_MAX_ENTRIES' },
  },
});
