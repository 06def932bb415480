import { defineConfig } from '../../kernel/config-values.ts';

export const keyServiceConfig = defineConfig({
  keys: {
    rotationCheckSeconds: { doc: 'How often the background timer looks for TimeBased keys that are due.', format: 'nat', default: 60, env: 'SVC_KEYS_ROTATION_CHECK_SECONDS' },
  },
});
