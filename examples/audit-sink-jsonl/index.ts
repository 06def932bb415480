import path from 'node:path';
// A published plugin would import these from the svc-kms package; the example sits in the repository.
import { auditFanoutPort, type ConfigValues, definePlugin, KERNEL_API_VERSION } from '../../kernel/index.ts';
import { JsonlFileSink } from './jsonl-file-sink.ts';
import { jsonlSinkConfig } from './config.ts';

export default definePlugin({
  id: 'example-audit-jsonl',
  apiVersion: KERNEL_API_VERSION,
  provides: auditFanoutPort,
  description: 'copies every audit record to a JSONL file (example third-party plugin)',
  config: jsonlSinkConfig,
  configSlice: (all: ConfigValues<typeof jsonlSinkConfig>) => ({ file: path.resolve(all.exampleJsonl.file) }),
  create: ({ config }) => new JsonlFileSink(config.file),
});
