import { definePlugin, KERNEL_API_VERSION, redactUrl, revocationPort } from '../../../kernel/index.ts';
import { redisRevocationSettings } from './config.ts';
import { RedisRevocationList } from './redis-revocation.ts';

export default definePlugin({
  id: 'revocation-redis',
  apiVersion: KERNEL_API_VERSION,
  provides: revocationPort,
  kind: 'kv-store',
  description: 'revocation list in Redis, shared by all nodes, entries expire with their tokens',
  settings: redisRevocationSettings,
  configure: ({ revocation }) => ({ uri: revocation.kvUri, prefix: revocation.kvKeyPrefix }),
  preflight: ({ uri }) => [
    uri
      ? { name: 'revocation.kvUri', status: 'ok', message: `revocation list at ${redactUrl(uri)}` }
      : {
          name: 'revocation.kvUri',
          status: 'fail',
          message: 'revocation.kind is kv-store but SVC_REVOCATION_KV_URI is empty',
          advice: 'set it to redis://host:6379/0',
        },
  ],
  create: ({ config, clock, logger }) => new RedisRevocationList(config.uri, config.prefix, clock, logger),
});
