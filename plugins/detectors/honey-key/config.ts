import { defineConfig } from '../../../kernel/index.ts';

export const honeyKeyConfig = defineConfig({
  honeyKeys: { doc: 'Comma-separated honey key ids (UUIDs).', format: String, default: '', env: 'SVC_HONEY_KEYS' },
});
