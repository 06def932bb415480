import { Type } from '@sinclair/typebox';
import { defineSettings, type PreflightNode } from '../../kernel/index.ts';

/** The longest waiting period a destroy may have, in days. */
export const MAX_WAITING_DAYS = 30;

export const keyServiceSettings = defineSettings(
  Type.Object({
    keys: Type.Object({
      rotationCheckSeconds: Type.Integer({
        minimum: 0,
        description: 'How often the background timer looks for TimeBased keys that are due.',
        default: 60,
      }),
      destroyWaitingDays: Type.Integer({
        minimum: 0,
        description:
          'Days a DELETE of a key waits before the key is destroyed when the ' +
          'request names no waitingDays (0..30; 0: at once). Meanwhile the key ' +
          'serves no call and a Human may cancel.',
        default: 0,
      }),
      agentDestroyWaitingDays: Type.Integer({
        minimum: 0,
        description: "The least number of days an Agent's DELETE of a key waits, whatever it asks (0..30).",
        default: 7,
      }),
      destroyCheckSeconds: Type.Integer({
        minimum: 0,
        description: 'How often each node looks for keys whose scheduled destruction is due.',
        default: 60,
      }),
    }),
    crypto: Type.Object({
      cacheTtlSeconds: Type.Integer({
        minimum: 0,
        description: 'How long an unwrapped key-wrapping key stays in memory before the root of trust is asked again.',
        default: 300,
      }),
      cacheMaxEntries: Type.Integer({
        minimum: 0,
        description: 'Most unwrapped key-wrapping keys kept in memory (least recently used go first).',
        default: 10000,
      }),
    }),
  }),
);

/**
 * Waiting periods beyond MAX_WAITING_DAYS are refused at boot (a DELETE could never ask for them); nothing to say
 * otherwise.
 */
export function waitingDaysFindings(destruction: {
  destroyWaitingDays: number;
  agentDestroyWaitingDays: number;
}): PreflightNode[] {
  const check = (name: string, env: string, days: number): PreflightNode[] =>
    days <= MAX_WAITING_DAYS
      ? []
      : [
          {
            name,
            status: 'fail',
            message: `${name} (${env}) is ${days}; it must be 0..${MAX_WAITING_DAYS} days`,
            advice: `set ${env} to at most ${MAX_WAITING_DAYS}`,
          },
        ];
  return [
    ...check('keys.destroyWaitingDays', 'SVC_KEYS_DESTROY_WAITING_DAYS', destruction.destroyWaitingDays),
    ...check(
      'keys.agentDestroyWaitingDays',
      'SVC_KEYS_AGENT_DESTROY_WAITING_DAYS',
      destruction.agentDestroyWaitingDays,
    ),
  ];
}
