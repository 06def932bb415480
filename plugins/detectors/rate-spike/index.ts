import { actorStatePort, type ConfigValues, definePlugin, detectorPort, KERNEL_API_VERSION } from '../../../kernel/index.ts';
import { RateSpikeDetector } from './rate-spike.ts';
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
