import { definePlugin, KERNEL_API_VERSION } from '../../kernel/define-plugin.ts';
import { metricsPort } from '../../kernel/observability/metrics.ts';
import { auditPipelinePort } from '../../kernel/ports/audit-pipeline.ts';
import { operationRunnerPort } from '../../kernel/ports/operation-runner.ts';
import { journalPort } from '../../kernel/ports/journal.ts';
import { rootOfTrustPort } from '../../kernel/ports/root-of-trust.ts';
import { KeyService, keyServicePort } from './key-service.ts';
import type { ConfigValues } from '../../kernel/config-values.ts';
import { keyServiceConfig } from './config.ts';

export default definePlugin({
  id: 'key-service',
  apiVersion: KERNEL_API_VERSION,
  provides: keyServicePort,
  description: 'key state, material and rotation policies',
  dependsOn: { journal: journalPort, rootOfTrust: rootOfTrustPort, operations: operationRunnerPort, metrics: metricsPort, audit: auditPipelinePort },
  config: keyServiceConfig,
  configSlice: (all: ConfigValues<typeof keyServiceConfig>) => ({ rotationCheckSeconds: all.keys.rotationCheckSeconds, kwkCache: { ttlSeconds: all.crypto.cacheTtlSeconds, maxEntries: all.crypto.cacheMaxEntries } }),
  create: ({ deps, config, clock, logger }) => {
    const service = new KeyService(deps.journal, deps.rootOfTrust, deps.operations, clock, logger, config, deps.metrics.registry, deps.audit);
    deps.metrics.trackErasurePending(() => service.erasure.count);
    return service;
  },
});
