import { actorStatePort, definePlugin, detectorPort, KERNEL_API_VERSION } from '../../../kernel/index.ts';
import { BaselineDetector, type BaselineDimension } from './baseline-detector.ts';
import { opHistogram, scope, sourceIp, timeOfDay } from './dimensions.ts';

const baselinePlugin = (id: string, dimension: BaselineDimension, description: string) =>
  definePlugin({
    id,
    apiVersion: KERNEL_API_VERSION,
    provides: detectorPort,
    kind: dimension.name,
    description,
    dependsOn: { state: actorStatePort },
    create: ({ deps }) => new BaselineDetector(dimension, deps.state),
  });

export const scopeBaseline = baselinePlugin('detector-scope-baseline', scope, 'a key the actor never touched before');
export const opHistogramBaseline = baselinePlugin(
  'detector-op-histogram-baseline',
  opHistogram,
  'an operation the actor never used before',
);
export const timeOfDayBaseline = baselinePlugin(
  'detector-time-of-day-baseline',
  timeOfDay,
  "a UTC hour outside the actor's seen hours",
);
export const sourceIpBaseline = baselinePlugin(
  'detector-source-ip-baseline',
  sourceIp,
  'a source address the actor never used before',
);
