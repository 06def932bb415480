import { definePlugin, KERNEL_API_VERSION } from '../../kernel/define-plugin.ts';
import { keyAdminPort, type KeyAdmin } from '../../kernel/ports/key-admin.ts';
import { keyServicePort } from './key-service.ts';

export default definePlugin({
  id: 'key-admin',
  apiVersion: KERNEL_API_VERSION,
  provides: keyAdminPort,
  description: 'key actions for internal actors (auto-responder)',
  dependsOn: { service: keyServicePort },
  create: ({ deps }): KeyAdmin => ({
    get: (keyId) => deps.service.lifecycle.get(keyId),
    revoke: async (keyId, by, reason) => void (await deps.service.lifecycle.revoke(keyId, by, reason)),
  }),
});
