import t from 'tap';
import { ActorStateBudget, DEFAULT_STATE_BYTES } from '../../kernel/detection/state-budget.ts';
import { BaselineDetector } from '../../plugins/detectors/baseline/baseline-detector.ts';
import { opHistogram, scope, sourceIp, timeOfDay } from '../../plugins/detectors/baseline/dimensions.ts';
import { HoneyKeyDetector } from '../../plugins/detectors/honey-key/honey-key.ts';
import { RateSpikeDetector } from '../../plugins/detectors/rate-spike/rate-spike.ts';
import { detectorContract } from '../../contracts/detector.ts';

const budget = () => new ActorStateBudget(DEFAULT_STATE_BYTES);

const builtins = {
  ScopeBaseline: () => new BaselineDetector(scope, budget()),
  RateSpike: () => new RateSpikeDetector(2, 1_000_000, budget()),
  OpHistogramBaseline: () => new BaselineDetector(opHistogram, budget()),
  TimeOfDayBaseline: () => new BaselineDetector(timeOfDay, budget()),
  SourceIpBaseline: () => new BaselineDetector(sourceIp, budget()),
  HoneyKey: () => new HoneyKeyDetector(new Set(['key-3'])),
};
for (const [name, make] of Object.entries(builtins)) t.test(name, async (t) => detectorContract(t, make));
