import {
  definePlugin,
  KERNEL_API_VERSION,
  metricsPort,
  type PreflightNode,
  type RootOfTrust,
  rootOfTrustPort,
} from '../../../kernel/index.ts';
import { RootOfTrustChain } from '../support/chain.ts';
import { cloudKmsPrevious, commaList } from '../support/cloud-kms-config.ts';
import { CloudKmsRootOfTrust } from '../support/cloud-kms-root-of-trust.ts';
import { LocalRootOfTrust } from '../support/local-root-of-trust.ts';
import { pkcs11SettingProblems, pkcs11Settings } from '../support/pkcs11-config.ts';
import { Pkcs11RootOfTrust } from '../support/pkcs11-root-of-trust.ts';
import { rootOfTrustSettings } from '../support/root-of-trust-config.ts';

export default definePlugin({
  id: 'root-of-trust-pkcs11',
  apiVersion: KERNEL_API_VERSION,
  provides: rootOfTrustPort,
  kind: 'pkcs11',
  description: 'KEK on an HSM token (PKCS#11); key-wrapping keys wrapped and unwrapped on the token',
  dependsOn: { metrics: metricsPort },
  settings: rootOfTrustSettings,
  configure: ({ crypto }) => ({
    pkcs11: pkcs11Settings(crypto.pkcs11),
    localPrevious: commaList(crypto.previousKeks),
    cloudPrevious: cloudKmsPrevious(crypto.cloudKms),
  }),
  preflight: ({ pkcs11, cloudPrevious }) => {
    const nodes: PreflightNode[] = pkcs11SettingProblems(pkcs11, 'current').map((p) => ({
      ...p,
      status: 'fail' as const,
    }));
    if (cloudPrevious.arns.length > 0 && !cloudPrevious.region) {
      nodes.push({
        name: 'crypto.cloudKms.region',
        status: 'fail',
        message: 'SVC_CRYPTO_CLOUD_KMS_PREVIOUS_KEK_ARNS is set but SVC_CRYPTO_CLOUD_KMS_REGION is empty',
        advice: 'set the region of the previous KEKs so their keys can be unwrapped and re-wrapped',
      });
    }
    // An HSM holds the KEK: production-grade, like cloud-kms, so no finding beyond what is missing.
    if (nodes.length === 0)
      nodes.push({
        name: 'crypto.kind',
        status: 'ok',
        message: `KEK "${pkcs11.kekLabel}" on the PKCS#11 token "${pkcs11.tokenLabel}" (${pkcs11.module})`,
      });
    return nodes;
  },
  create: ({ config, deps, logger }) => {
    const current = new Pkcs11RootOfTrust(config.pkcs11, deps.metrics.registry, logger);
    const previous: RootOfTrust[] = [];
    // Moving from the local root of trust or cloud-kms: their KEKs still unwrap until rewrap has moved every key here.
    if (config.localPrevious.length > 0)
      previous.push(
        new LocalRootOfTrust(
          { kind: 'configured', kekBase64: config.localPrevious[0]! },
          config.localPrevious.slice(1),
        ),
      );
    const { arns, region, endpoint, timeoutMs } = config.cloudPrevious;
    if (arns.length > 0)
      previous.push(
        new CloudKmsRootOfTrust(
          { region, endpoint, timeoutMs, kekArn: arns[0]!, previousKekArns: arns.slice(1) },
          deps.metrics.registry,
          logger,
          { probeAtStart: false },
        ),
      );
    return previous.length === 0 ? current : new RootOfTrustChain(current, previous);
  },
});
