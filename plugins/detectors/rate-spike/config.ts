import { defineConfig } from '../../../kernel/index.ts';

export const rateSpikeConfig = defineConfig({
  detectors: {
    rateSpike: {
      threshold: { doc: 'Requests per window that make a Medium finding (3x: High).', format: 'nat', default: 30, env: 'SVC_RATE_SPIKE_THRESHOLD' },
      windowSeconds: { doc: 'Sliding window of the rate-spike detector.', format: 'nat', default: 60, env: 'SVC_RATE_SPIKE_WINDOW_SECONDS' },
    },
  },
});
