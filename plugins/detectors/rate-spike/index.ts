import { definePlugin, KERNEL_API_VERSION } from '../../../kernel/define-plugin.ts';
import { actorStatePort } from '../../../kernel/detection/state-budget.ts';
import { detectorPort } from '../../../kernel/ports/detector.ts';
import { RateSpikeDetector } from './rate-spike.ts';
import type { ConfigValues } from '../../../kernel/config-values.ts';
import { rateSpikeConfig } from './config.ts';

export default definePlugin({
  id: 'detector-rate-spike',
  apiVersion: KERNEL_API_VERSION,
  provides: detectorPort,
  kind: 'RateSpike',
  description: 'requests per actor in a sliding window: Medium at the threshold, High at 3x',
  config: rateSpikeConfig,
  configSlice: (all: ConfigValues<typeof rateSpikeConfig>) => ({ threshold: Math.max(1, all.detectors.rateSpike.threshold as number), windowSeconds: Math.max(1, all.detectors.rateSpike.windowSeconds as number) }),
  dependsOn: { state: actorStatePort },
  create: ({ config, deps }) => new RateSpikeDetector(config.threshold, config.windowSeconds, deps.state),
});
