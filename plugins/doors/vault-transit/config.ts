import { Type } from '@sinclair/typebox';
import { defineSettings } from '../../../kernel/index.ts';

export const vaultSettings = defineSettings(
  Type.Object({
    vault: Type.Object({
      enabled: Type.Boolean({
        description:
          "Serve a subset of Vault's transit secrets engine at /v1/<vault.mount>/ on the HTTP listener (X-Vault-Token " +
          'carries a svc-kms bearer token; a transit key name is the alias alias/NAME): SOPS hc_vault_transit, ' +
          "Vault's transit seal, hvac and node-vault use it by address.",
        default: true,
      }),
      mount: Type.String({
        pattern: '^[A-Za-z0-9_-]{1,64}$',
        description:
          'The transit mount name: the door answers /v1/<mount>/... (Vault clients name it as mount_point, SOPS in ' +
          'its key URL). It must not be a path of the REST API (keys, aliases, audit, ...).',
        default: 'transit',
      }),
    }),
  }),
);
