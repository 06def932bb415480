import { definePlugin, KERNEL_API_VERSION, revocationPort } from '../../../kernel/index.ts';
import { MemoryRevocationList } from './memory-revocation.ts';

export default definePlugin({
  id: 'revocation-memory',
  apiVersion: KERNEL_API_VERSION,
  provides: revocationPort,
  kind: 'in-memory',
  description: 'process-local revocation list (lost on restart)',
  configure: (_settings, deployment) => ({ authKind: deployment.kinds.auth ?? '' }),
  // With bearer tokens on a reachable bind, a revoked Human or Service token would be accepted again after
  // a restart (and on every other node), until it expires. Agents do not depend on the list: the agent
  // registry stops them. dev mode has no tokens, so nothing to say there.
  preflight: ({ authKind }, env) =>
    env.exposed && authKind !== 'dev'
      ? [
          {
            name: 'revocation.kind',
            status: 'warn',
            message:
              'revocation.kind is in-memory: a revoked token is accepted again after ' +
              'a restart, and on every other node, until it expires',
            advice:
              'set SVC_REVOCATION_KIND=kv-store with SVC_REVOCATION_KV_URI (Redis), ' +
              'shared by every node and kept across restarts; or keep tokens short-lived',
          },
        ]
      : [
          {
            name: 'revocation.kind',
            status: 'ok',
            message: `in-memory revocation list (${authKind === 'dev' ? 'dev auth has no tokens' : 'loopback bind'})`,
          },
        ],
  create: ({ clock }) => new MemoryRevocationList(clock),
});
