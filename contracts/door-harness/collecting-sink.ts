import {
  auditFanoutPort,
  definePlugin,
  KERNEL_API_VERSION,
  type AuditEvent,
  type AuditFanoutSink,
} from '../../kernel/index.ts';

/** Every audit event the door contract's service fanned out to its secondary sinks. */
export const fannedOut: AuditEvent[] = [];

export default definePlugin({
  id: 'door-contract-sink',
  apiVersion: KERNEL_API_VERSION,
  provides: auditFanoutPort,
  description: 'the door contract suite: a secondary audit sink that keeps events in memory',
  create: (): AuditFanoutSink => ({
    name: 'door-contract',
    deliver: async (event) => void fannedOut.push(event),
  }),
});
