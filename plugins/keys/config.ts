import { defineConfig, type PreflightNode } from '../../kernel/index.ts';

/** The longest waiting period a destroy may have, in days. */
export const MAX_WAITING_DAYS = 30;

export const keyServiceConfig = defineConfig({
  keys: {
    rotationCheckSeconds: { doc: 'How often the background timer looks for TimeBased keys that are due.', format: 'nat', default: 60, env: 'SVC_KEYS_ROTATION_CHECK_SECONDS' },
    destroyWaitingDays: { doc: 'Days a DELETE of a key waits before the key is destroyed when the request names no waitingDays (0..30; 0: at once). Meanwhile the key serves no call and a Human may cancel.', format: 'nat', default: 0, env: 'SVC_KEYS_DESTROY_WAITING_DAYS' },
    agentDestroyWaitingDays: { doc: "The least number of days an Agent's DELETE of a key waits, whatever it asks (0..30).", format: 'nat', default: 7, env: 'SVC_KEYS_AGENT_DESTROY_WAITING_DAYS' },
    destroyCheckSeconds: { doc: 'How often each node looks for keys whose scheduled destruction is due.', format: 'nat', default: 60, env: 'SVC_KEYS_DESTROY_CHECK_SECONDS' },
  },
  crypto: {
    cacheTtlSeconds: { doc: 'How long an unwrapped key-wrapping key stays in memory before the root of trust is asked again.', format: 'nat', default: 300, env: 'SVC_CRYPTO_CACHE_TTL_SECONDS' },
    cacheMaxEntries: { doc: 'Most unwrapped key-wrapping keys kept in memory (least recently used go first).', format: 'nat', default: 10000, env: 'SVC_CRYPTO_CACHE_MAX_ENTRIES' },
  },
});

/** Waiting periods beyond MAX_WAITING_DAYS are refused at boot (a DELETE could never ask for them); nothing to say otherwise. */
export function waitingDaysFindings(destruction: { destroyWaitingDays: number; agentDestroyWaitingDays: number }): PreflightNode[] {
  const check = (name: string, env: string, days: number): PreflightNode[] => (days <= MAX_WAITING_DAYS ? []
    : [{ name, status: 'fail', message: `${name} (${env}) is ${days}; it must be 0..${MAX_WAITING_DAYS} days`, advice: `set ${env} to at most ${MAX_WAITING_DAYS}` }]);
  return [
    ...check('keys.destroyWaitingDays', 'SVC_KEYS_DESTROY_WAITING_DAYS', destruction.destroyWaitingDays),
    ...check('keys.agentDestroyWaitingDays', 'SVC_KEYS_AGENT_DESTROY_WAITING_DAYS', destruction.agentDestroyWaitingDays),
  ];
}
