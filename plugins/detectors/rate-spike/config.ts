import { Type } from '@sinclair/typebox';
import { defineSettings } from '../../../kernel/index.ts';

export const rateSpikeSettings = defineSettings(
  Type.Object({
    detectors: Type.Object({
      rateSpike: Type.Object({
        threshold: Type.Integer({
          minimum: 0,
          description: 'Requests per window that make a Medium finding (3x: High).',
          default: 30,
          env: 'SVC_RATE_SPIKE_THRESHOLD',
        }),
        windowSeconds: Type.Integer({
          minimum: 0,
          description: 'Sliding window of the rate-spike detector.',
          default: 60,
          env: 'SVC_RATE_SPIKE_WINDOW_SECONDS',
        }),
      }),
    }),
  }),
);
