import {
  auditPipelinePort,
  definePlugin,
  journalPort,
  KERNEL_API_VERSION,
  metricsPort,
  operationRunnerPort,
  rootOfTrustPort,
} from '../../kernel/index.ts';
import { KeyService, keyServicePort } from './key-service.ts';
import { keyServiceSettings, waitingDaysFindings } from './config.ts';

export default definePlugin({
  id: 'key-service',
  apiVersion: KERNEL_API_VERSION,
  provides: keyServicePort,
  description: 'key state, material and rotation policies',
  dependsOn: {
    journal: journalPort,
    rootOfTrust: rootOfTrustPort,
    operations: operationRunnerPort,
    metrics: metricsPort,
    audit: auditPipelinePort,
  },
  settings: keyServiceSettings,
  configure: ({ keys, crypto }) => ({
    rotationCheckSeconds: keys.rotationCheckSeconds,
    kwkCache: { ttlSeconds: crypto.cacheTtlSeconds, maxEntries: crypto.cacheMaxEntries },
    destruction: {
      destroyWaitingDays: keys.destroyWaitingDays,
      agentDestroyWaitingDays: keys.agentDestroyWaitingDays,
      checkSeconds: keys.destroyCheckSeconds,
    },
  }),
  preflight: ({ destruction }) => waitingDaysFindings(destruction),
  create: ({ deps, config, clock, logger }) => {
    const refused = waitingDaysFindings(config.destruction)[0];
    if (refused) throw new Error(refused.message);
    const service = new KeyService(
      deps.journal,
      deps.rootOfTrust,
      deps.operations,
      clock,
      logger,
      config,
      deps.metrics.registry,
      deps.audit,
    );
    deps.metrics.trackErasurePending(() => service.erasure.count);
    return service;
  },
});
