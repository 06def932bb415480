import t from 'tap';
import { BaselineDetector } from '../../plugins/detectors/baseline/baseline-detector.ts';
import { opHistogram, scope, sourceIp, timeOfDay } from '../../plugins/detectors/baseline/dimensions.ts';
import { HoneyKeyDetector } from '../../plugins/detectors/honey-key/honey-key.ts';
import { RateSpikeDetector } from '../../plugins/detectors/rate-spike/rate-spike.ts';
import { detectorContract } from '../../contracts/detector.ts';

const builtins = {
  ScopeBaseline: () => new BaselineDetector(scope),
  RateSpike: () => new RateSpikeDetector(2, 1_000_000),
  OpHistogramBaseline: () => new BaselineDetector(opHistogram),
  TimeOfDayBaseline: () => new BaselineDetector(timeOfDay),
  SourceIpBaseline: () => new BaselineDetector(sourceIp),
  HoneyKey: () => new HoneyKeyDetector(new Set(['key-3'])),
};
for (const [name, make] of Object.entries(builtins)) t.test(name, async (t) => detectorContract(t, make));
