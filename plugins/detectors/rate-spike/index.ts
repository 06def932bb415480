import { actorStatePort, definePlugin, detectorPort, KERNEL_API_VERSION } from '../../../kernel/index.ts';
import { rateSpikeSettings } from './config.ts';
import { RateSpikeDetector } from './rate-spike.ts';

export default definePlugin({
  id: 'detector-rate-spike',
  apiVersion: KERNEL_API_VERSION,
  provides: detectorPort,
  kind: 'RateSpike',
  description: 'requests per actor in a sliding window: Medium at the threshold, High at 3x',
  settings: rateSpikeSettings,
  configure: ({ detectors: { rateSpike } }) => ({
    threshold: Math.max(1, rateSpike.threshold),
    windowSeconds: Math.max(1, rateSpike.windowSeconds),
  }),
  dependsOn: { state: actorStatePort },
  create: ({ config, deps }) => new RateSpikeDetector(config.threshold, config.windowSeconds, deps.state),
});
