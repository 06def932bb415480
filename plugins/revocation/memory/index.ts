import { definePlugin, KERNEL_API_VERSION } from '../../../kernel/define-plugin.ts';
import { revocationPort } from '../../../kernel/ports/revocation.ts';
import { MemoryRevocationList } from './memory-revocation.ts';

export default definePlugin({
  id: 'revocation-memory',
  apiVersion: KERNEL_API_VERSION,
  provides: revocationPort,
  kind: 'in-memory',
  description: 'process-local revocation list (lost on restart)',
  create: ({ clock }) => new MemoryRevocationList(clock),
});
