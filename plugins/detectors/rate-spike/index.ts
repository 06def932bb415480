import { definePlugin, KERNEL_API_VERSION } from '../../../kernel/define-plugin.ts';
import { detectorPort } from '../../../kernel/ports/detector.ts';
import { RateSpikeDetector } from './rate-spike.ts';

export default definePlugin({
  id: 'detector-rate-spike',
  apiVersion: KERNEL_API_VERSION,
  provides: detectorPort,
  kind: 'RateSpike',
  description: 'requests per actor in a sliding window: Medium at the threshold, High at 3x',
  config: {
    detectors: {
      rateSpike: {
        threshold: { doc: 'Requests per window that make a Medium finding (3x: High).', format: 'nat', default: 30, env: 'SVC_RATE_SPIKE_THRESHOLD' },
        windowSeconds: { doc: 'Sliding window of the rate-spike detector.', format: 'nat', default: 60, env: 'SVC_RATE_SPIKE_WINDOW_SECONDS' },
      },
    },
  },
  configSlice: (all: Record<string, any>) => ({ threshold: Math.max(1, all.detectors.rateSpike.threshold as number), windowSeconds: Math.max(1, all.detectors.rateSpike.windowSeconds as number) }),
  create: ({ config }) => new RateSpikeDetector(config.threshold, config.windowSeconds),
});
