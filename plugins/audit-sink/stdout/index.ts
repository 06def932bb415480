import { auditSinkPort, definePlugin, KERNEL_API_VERSION } from '../../../kernel/index.ts';
import { StdoutAuditSink } from './stdout-sink.ts';

export default definePlugin({
  id: 'audit-sink-stdout',
  apiVersion: KERNEL_API_VERSION,
  provides: auditSinkPort,
  kind: 'stdout',
  description: 'one JSON line per record on stdout (not queryable)',
  create: () => new StdoutAuditSink(),
});
