import path from 'node:path';
// A published plugin would import these from the svc-kms package; the example sits in the repository.
import { auditFanoutPort, definePlugin, KERNEL_API_VERSION } from '../../kernel/index.ts';
import { JsonlFileSink } from './jsonl-file-sink.ts';
import { jsonlSinkSettings } from './config.ts';

export default definePlugin({
  id: 'example-audit-jsonl',
  apiVersion: KERNEL_API_VERSION,
  provides: auditFanoutPort,
  description: 'copies every audit record to a JSONL file (example third-party plugin)',
  settings: jsonlSinkSettings,
  // Receives this plugin's own settings only, validated and typed from the declaration; what it returns is `create`'s
  // config.
  configure: ({ exampleJsonl }) => ({ file: path.resolve(exampleJsonl.file) }),
  create: ({ config }) => new JsonlFileSink(config.file),
});
