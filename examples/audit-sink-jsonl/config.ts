import { defineConfig } from '../../kernel/index.ts';

export const jsonlSinkConfig = defineConfig({
  exampleJsonl: {
    file: { doc: 'JSONL file the example sink appends to.', format: String, default: 'data/audit-copy.jsonl', env: 'SVC_EXAMPLE_JSONL_FILE' },
  },
});
