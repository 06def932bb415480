import {
  authenticatorPort,
  definePlugin,
  doorPort,
  KERNEL_API_VERSION,
  operationRunnerPort,
} from '../../../kernel/index.ts';
import { vaultSettings } from './config.ts';
import { VaultTransitDoor } from './vault-door.ts';

export default definePlugin({
  id: 'vault-transit',
  apiVersion: KERNEL_API_VERSION,
  provides: doorPort,
  description:
    "Vault's transit API at /v1/transit/ (X-Vault-Token): SOPS, Vault's transit seal, hvac and node-vault by " +
    'address, through the one pipeline',
  dependsOn: { runner: operationRunnerPort, authenticator: authenticatorPort },
  settings: vaultSettings,
  configure: (settings, deployment) => ({
    mount: settings.vault.mount,
    maxBodyBytes: deployment.http.maxBodyBytes,
  }),
  create: ({ config, deps, logger }) => new VaultTransitDoor({ ...deps, logger }, config),
});
