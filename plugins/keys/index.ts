import { definePlugin, KERNEL_API_VERSION } from '../../kernel/define-plugin.ts';
import { routesPort, type RouteContribution } from '../../kernel/http/route.ts';
import { keyServicePort } from './key-service.ts';
import { keyRoutes } from './routes.ts';

export default definePlugin({
  id: 'keys',
  apiVersion: KERNEL_API_VERSION,
  provides: routesPort,
  description: 'key lifecycle and cryptographic operations (/v1/keys)',
  dependsOn: { service: keyServicePort },
  create: ({ deps }): RouteContribution => ({ routes: keyRoutes(deps.service.lifecycle, deps.service.crypto) }),
});
