import {
  definePlugin,
  KERNEL_API_VERSION,
  metricsPort,
  type PreflightNode,
  rootOfTrustPort,
} from '../../../kernel/index.ts';
import { commaList } from '../support/comma-list.ts';
import { CloudKmsRootOfTrust } from './cloud-kms-root-of-trust.ts';
import { cloudKmsSettings } from './config.ts';

export default definePlugin({
  id: 'root-of-trust-cloud-kms',
  apiVersion: KERNEL_API_VERSION,
  provides: rootOfTrustPort,
  kind: 'cloud-kms',
  description: 'KEK held by a cloud KMS (AWS KMS API); key-wrapping keys encrypted with it',
  dependsOn: { metrics: metricsPort },
  settings: cloudKmsSettings,
  configure: ({ crypto: { cloudKms: c } }) => ({
    region: c.region,
    kekArn: c.kekArn,
    previousKekArns: commaList(c.previousKekArns),
    endpoint: c.endpoint,
    timeoutMs: Math.max(100, c.timeoutMs),
  }),
  preflight: (c) => {
    const nodes: PreflightNode[] = [];
    if (!c.region)
      nodes.push({
        name: 'crypto.cloudKms.region',
        status: 'fail',
        message: 'crypto.kind is cloud-kms but SVC_CRYPTO_CLOUD_KMS_REGION is empty',
        advice: 'set the KMS region, for example eu-west-1',
      });
    if (!c.kekArn)
      nodes.push({
        name: 'crypto.cloudKms.kekArn',
        status: 'fail',
        message: 'crypto.kind is cloud-kms but SVC_CRYPTO_CLOUD_KMS_KEK_ARN is empty',
        advice: 'set the ARN of a symmetric KMS key (ENCRYPT_DECRYPT) this service may use',
      });
    if (c.region && c.kekArn)
      nodes.push({
        name: 'crypto.kind',
        status: 'ok',
        message: `KEK ${c.kekArn} in cloud KMS (${c.region})${c.endpoint ? ` at ${c.endpoint}` : ''}`,
      });
    return nodes;
  },
  create: ({ config, deps, logger }) => new CloudKmsRootOfTrust(config, deps.metrics.registry, logger),
});
