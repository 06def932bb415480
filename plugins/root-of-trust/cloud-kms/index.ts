import {
  definePlugin,
  KERNEL_API_VERSION,
  metricsPort,
  type PreflightNode,
  type RootOfTrust,
  rootOfTrustPort,
} from '../../../kernel/index.ts';
import { CloudKmsRootOfTrust } from '../support/cloud-kms-root-of-trust.ts';
import { commaList } from '../support/cloud-kms-config.ts';
import { RootOfTrustChain } from '../support/chain.ts';
import { LocalRootOfTrust } from '../support/local-root-of-trust.ts';
import { pkcs11PreviousSettings, pkcs11SettingProblems } from '../support/pkcs11-config.ts';
import { Pkcs11RootOfTrust } from '../support/pkcs11-root-of-trust.ts';
import { rootOfTrustSettings } from '../support/root-of-trust-config.ts';

export default definePlugin({
  id: 'root-of-trust-cloud-kms',
  apiVersion: KERNEL_API_VERSION,
  provides: rootOfTrustPort,
  kind: 'cloud-kms',
  description: 'KEK held by a cloud KMS (AWS KMS API); key-wrapping keys encrypted with it',
  dependsOn: { metrics: metricsPort },
  settings: rootOfTrustSettings,
  configure: ({ crypto: { cloudKms: c, previousKeks, pkcs11 } }) => ({
    region: c.region,
    kekArn: c.kekArn,
    previousKekArns: commaList(c.previousKekArns),
    endpoint: c.endpoint,
    timeoutMs: Math.max(100, c.timeoutMs),
    localPrevious: commaList(previousKeks),
    pkcs11Previous: pkcs11PreviousSettings(pkcs11),
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
    if (c.pkcs11Previous)
      nodes.push(
        ...pkcs11SettingProblems(c.pkcs11Previous, 'previous').map((p) => ({ ...p, status: 'fail' as const })),
      );
    if (c.region && c.kekArn)
      nodes.push({
        name: 'crypto.kind',
        status: 'ok',
        message: `KEK ${c.kekArn} in cloud KMS (${c.region})${c.endpoint ? ` at ${c.endpoint}` : ''}`,
      });
    return nodes;
  },
  create: ({ config, deps, logger }) => {
    const cloud = new CloudKmsRootOfTrust(config, deps.metrics.registry, logger);
    const previous: RootOfTrust[] = [];
    // Moving from the local root of trust or pkcs11: their KEKs still unwrap until rewrap has moved every key here.
    if (config.localPrevious.length > 0)
      previous.push(
        new LocalRootOfTrust(
          { kind: 'configured', kekBase64: config.localPrevious[0]! },
          config.localPrevious.slice(1),
        ),
      );
    if (config.pkcs11Previous)
      previous.push(new Pkcs11RootOfTrust(config.pkcs11Previous, deps.metrics.registry, logger, { role: 'previous' }));
    return previous.length === 0 ? cloud : new RootOfTrustChain(cloud, previous);
  },
});
