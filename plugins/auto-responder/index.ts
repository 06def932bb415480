import {
  actorStatePort,
  auditPipelinePort,
  createPortRef,
  definePlugin,
  detectorPort,
  KERNEL_API_VERSION,
  metricsPort,
  operationRunnerPort,
} from '../../kernel/index.ts';
import { MaterialUses } from './material-uses.ts';
import { AutoResponder } from './auto-responder.ts';
import { responseMetrics } from './response-metrics.ts';
import { defaultRules, parseRules } from './rules.ts';
import { autoResponseSettings } from './config.ts';

const DETECTOR_NAMES = [
  'ScopeBaseline',
  'RateSpike',
  'OpHistogramBaseline',
  'TimeOfDayBaseline',
  'SourceIpBaseline',
  'HoneyKey',
];

export default definePlugin({
  id: 'auto-responder',
  apiVersion: KERNEL_API_VERSION,
  provides: createPortRef<AutoResponder>('autoResponder'),
  description: 'runs the detectors on every audit record and acts on their findings',
  dependsOn: {
    detectors: detectorPort,
    operations: operationRunnerPort,
    audit: auditPipelinePort,
    metrics: metricsPort,
    state: actorStatePort,
  },
  settings: autoResponseSettings,
  configure: ({ autoResponse }) => {
    const revokeKinds = autoResponse.revokeKinds
      .split(',')
      .map((k) => k.trim())
      .filter(Boolean);
    const lines = autoResponse.rules.length ? autoResponse.rules.map(String) : defaultRules(revokeKinds);
    return { enabled: autoResponse.enabled, cooldownMs: autoResponse.cooldownSeconds * 1000, lines };
  },
  preflight: ({ lines }) => {
    try {
      return [
        {
          name: 'autoResponse.rules',
          status: 'ok',
          message: `${parseRules(lines, DETECTOR_NAMES).length} rule(s): ${lines.join(' | ')}`,
        },
      ];
    } catch (err) {
      return [
        {
          name: 'autoResponse.rules',
          status: 'fail',
          message: (err as Error).message,
          advice: 'see docs/detection.md for the rule syntax',
        },
      ];
    }
  },
  create: ({ config, deps, clock, logger }) =>
    new AutoResponder(
      deps.detectors,
      config.enabled ? parseRules(config.lines, DETECTOR_NAMES) : [],
      deps.operations,
      deps.audit,
      clock,
      logger,
      config.cooldownMs,
      new MaterialUses(deps.state),
      responseMetrics(deps.metrics.registry),
    ),
});
