import {
  definePlugin,
  KERNEL_API_VERSION,
  metricsPort,
  type PreflightNode,
  rootOfTrustPort,
} from '../../../kernel/index.ts';
import { pkcs11Config, pkcs11SettingProblems, pkcs11Settings } from './config.ts';
import { Pkcs11RootOfTrust } from './pkcs11-root-of-trust.ts';

export default definePlugin({
  id: 'root-of-trust-pkcs11',
  apiVersion: KERNEL_API_VERSION,
  provides: rootOfTrustPort,
  kind: 'pkcs11',
  description: 'KEK on an HSM token (PKCS#11); key-wrapping keys wrapped and unwrapped on the token',
  dependsOn: { metrics: metricsPort },
  settings: pkcs11Config,
  configure: ({ crypto }) => pkcs11Settings(crypto.pkcs11),
  preflight: (pkcs11) => {
    const nodes: PreflightNode[] = pkcs11SettingProblems(pkcs11, 'current').map((p) => ({
      ...p,
      status: 'fail' as const,
    }));
    // An HSM holds the KEK: production-grade, like cloud-kms, so no finding beyond what is missing.
    if (nodes.length === 0)
      nodes.push({
        name: 'crypto.kind',
        status: 'ok',
        message: `KEK "${pkcs11.kekLabel}" on the PKCS#11 token "${pkcs11.tokenLabel}" (${pkcs11.module})`,
      });
    return nodes;
  },
  create: ({ config, deps, logger }) => new Pkcs11RootOfTrust(config, deps.metrics.registry, logger),
});
