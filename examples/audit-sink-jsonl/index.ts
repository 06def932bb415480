import path from 'node:path';
// A published plugin would import these from the svc-kms package; the example sits in the repository.
import { definePlugin, KERNEL_API_VERSION } from '../../kernel/define-plugin.ts';
import { auditFanoutPort } from '../../kernel/ports/audit-sink.ts';
import { JsonlFileSink } from './jsonl-file-sink.ts';

export default definePlugin({
  id: 'example-audit-jsonl',
  apiVersion: KERNEL_API_VERSION,
  provides: auditFanoutPort,
  description: 'copies every audit record to a JSONL file (example third-party plugin)',
  config: {
    exampleJsonl: {
      file: { doc: 'JSONL file the example sink appends to.', format: String, default: 'data/audit-copy.jsonl', env: 'SVC_EXAMPLE_JSONL_FILE' },
    },
  },
  configSlice: (all: Record<string, any>) => ({ file: path.resolve(all.exampleJsonl.file as string) }),
  create: ({ config }) => new JsonlFileSink(config.file),
});
