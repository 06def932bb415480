import { definePlugin, KERNEL_API_VERSION, metricsPort, previousKeksPort } from '../../../kernel/index.ts';
import { unprobed } from '../support/unprobed.ts';
import { pkcs11Config, pkcs11PreviousSettings, pkcs11SettingProblems } from './config.ts';
import { Pkcs11RootOfTrust } from './pkcs11-root-of-trust.ts';

/**
 * The KEKs on a PKCS#11 token listed in crypto.pkcs11.previousKekLabels, while crypto.kind is another
 * kind: they still unwrap the keys wrapped under them until `rewrap` has moved every key to the current KEK.
 */
export default definePlugin({
  id: 'root-of-trust-pkcs11-previous',
  apiVersion: KERNEL_API_VERSION,
  provides: previousKeksPort,
  description: 'previous KEKs on a PKCS#11 token, unwrapping only while keys move off pkcs11',
  dependsOn: { metrics: metricsPort },
  settings: pkcs11Config,
  instances: ({ crypto }, deployment) => {
    const previous = pkcs11PreviousSettings(crypto.pkcs11);
    // The pkcs11 root of trust unwraps with its own previous labels when it is the chosen kind.
    if (deployment.kinds.crypto === 'pkcs11' || !previous) return [];
    return [{ name: 'pkcs11', config: previous }];
  },
  preflight: (previous) => pkcs11SettingProblems(previous, 'previous').map((p) => ({ ...p, status: 'fail' as const })),
  create: ({ config, deps, logger }) =>
    unprobed(new Pkcs11RootOfTrust(config, deps.metrics.registry, logger, { role: 'previous' })),
});
