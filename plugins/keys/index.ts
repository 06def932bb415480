import { definePlugin, KERNEL_API_VERSION } from '../../kernel/define-plugin.ts';
import { routesPort, type RouteContribution } from '../../kernel/http/route.ts';
import type { Lifecycle } from '../../kernel/ports/lifecycle.ts';
import { auditPipelinePort } from '../../kernel/ports/audit-pipeline.ts';
import { journalPort } from '../../kernel/ports/journal.ts';
import { rootOfTrustPort } from '../../kernel/ports/root-of-trust.ts';
import { KeyCrypto } from './key-crypto.ts';
import { KeyLifecycle } from './key-lifecycle.ts';
import { KeyStore } from './key-store.ts';
import { RotationScheduler } from './rotation-scheduler.ts';
import { keyRoutes } from './routes.ts';

export default definePlugin({
  id: 'keys',
  apiVersion: KERNEL_API_VERSION,
  provides: routesPort,
  description: 'key lifecycle and cryptographic operations (/v1/keys)',
  dependsOn: { journal: journalPort, rootOfTrust: rootOfTrustPort, audit: auditPipelinePort },
  config: {
    keys: {
      rotationCheckSeconds: { doc: 'How often the background timer looks for TimeBased keys that are due.', format: 'nat', default: 60, env: 'SVC_KEYS_ROTATION_CHECK_SECONDS' },
    },
  },
  configSlice: (all: Record<string, any>) => ({ rotationCheckSeconds: all.keys.rotationCheckSeconds as number }),
  create: ({ deps, config, clock, logger }): RouteContribution & Lifecycle => {
    const store = new KeyStore(deps.journal, deps.rootOfTrust);
    const lifecycle = new KeyLifecycle(store, clock);
    const scheduler = new RotationScheduler(store, lifecycle, deps.journal, deps.audit, clock, logger, Math.max(1, config.rotationCheckSeconds));
    return {
      routes: keyRoutes(lifecycle, new KeyCrypto(store, scheduler)),
      start: () => scheduler.start(),
      stop: () => scheduler.stop(),
    };
  },
});
