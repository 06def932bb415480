import { definePlugin, KERNEL_API_VERSION, metricsPort, previousKeksPort } from '../../../kernel/index.ts';
import { unprobed } from '../support/unprobed.ts';
import { CloudKmsRootOfTrust } from './cloud-kms-root-of-trust.ts';
import { cloudKmsPrevious, cloudKmsSettings } from './config.ts';

/**
 * The cloud KMS KEKs listed in crypto.cloudKms.previousKekArns, while crypto.kind is another kind: they
 * still unwrap the keys wrapped under them until `rewrap` has moved every key to the current KEK.
 */
export default definePlugin({
  id: 'root-of-trust-cloud-kms-previous',
  apiVersion: KERNEL_API_VERSION,
  provides: previousKeksPort,
  description: 'previous KEKs in a cloud KMS, unwrapping only while keys move off cloud-kms',
  dependsOn: { metrics: metricsPort },
  settings: cloudKmsSettings,
  instances: ({ crypto }, deployment) => {
    const previous = cloudKmsPrevious(crypto.cloudKms);
    // The cloud-kms root of trust unwraps with its own previous ARNs when it is the chosen kind.
    if (deployment.kinds.crypto === 'cloud-kms' || previous.arns.length === 0) return [];
    return [{ name: 'cloud-kms', config: previous }];
  },
  preflight: (previous) =>
    previous.region
      ? []
      : [
          {
            name: 'crypto.cloudKms.region',
            status: 'fail',
            message: 'SVC_CRYPTO_CLOUD_KMS_PREVIOUS_KEK_ARNS is set but SVC_CRYPTO_CLOUD_KMS_REGION is empty',
            advice: 'set the region of the previous KEKs so their keys can be unwrapped and re-wrapped',
          },
        ],
  create: ({ config: { arns, region, endpoint, timeoutMs }, deps, logger }) =>
    unprobed(
      new CloudKmsRootOfTrust(
        { region, endpoint, timeoutMs, kekArn: arns[0]!, previousKekArns: arns.slice(1) },
        deps.metrics.registry,
        logger,
        { probeAtStart: false },
      ),
    ),
});
