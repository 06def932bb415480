import { definePlugin, doorPort, KERNEL_API_VERSION, loggerPort, operationRunnerPort } from '../../../kernel/index.ts';
import { jwksSettings } from './config.ts';
import { JwksDoor } from './jwks-door.ts';

export default definePlugin({
  id: 'jwks',
  apiVersion: KERNEL_API_VERSION,
  provides: doorPort,
  description: 'The public JSON Web Key Set at /.well-known/jwks.json: public keys of the keys tagged jwks=public',
  dependsOn: { runner: operationRunnerPort, logger: loggerPort },
  settings: jwksSettings,
  configure: (settings) => ({ cacheSeconds: settings.jwks.cacheSeconds }),
  create: ({ config, deps }) => new JwksDoor(deps.runner, deps.logger, config.cacheSeconds),
});
