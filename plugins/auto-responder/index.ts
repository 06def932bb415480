import { definePlugin, KERNEL_API_VERSION } from '../../kernel/define-plugin.ts';
import { auditPipelinePort } from '../../kernel/ports/audit-pipeline.ts';
import { detectorPort } from '../../kernel/ports/detector.ts';
import { operationRunnerPort } from '../../kernel/ports/operation-runner.ts';
import { createPortRef } from '../../kernel/ports/port-ref.ts';
import { AutoResponder } from './auto-responder.ts';
import { defaultRules, parseRules } from './rules.ts';

const DETECTOR_NAMES = ['ScopeBaseline', 'RateSpike', 'OpHistogramBaseline', 'TimeOfDayBaseline', 'SourceIpBaseline', 'HoneyKey'];

export default definePlugin({
  id: 'auto-responder',
  apiVersion: KERNEL_API_VERSION,
  provides: createPortRef<AutoResponder>('autoResponder'),
  description: 'runs the detectors on every audit record and acts on their findings',
  dependsOn: { detectors: detectorPort, operations: operationRunnerPort, audit: auditPipelinePort },
  config: {
    autoResponse: {
      enabled: { doc: 'Act on detector findings (false: detectors still run, nothing is done).', format: Boolean, default: true, env: 'SVC_AUTO_RESPONSE_ENABLED' },
      cooldownSeconds: { doc: 'At most one action per (actor, action) in this time.', format: 'nat', default: 60, env: 'SVC_AUTO_RESPONSE_COOLDOWN_SECONDS' },
      revokeKinds: { doc: 'Principal kinds whose High findings revoke the key (others get Alert).', format: String, default: 'Agent', env: 'SVC_AUTO_RESPONSE_REVOKE_KINDS' },
      rules: { doc: 'Rule lines `DETECTOR:SEVERITY -> ACTION [for KIND,...]`, first match wins; empty means the shipped rules.', format: Array, default: [] },
    },
  },
  configSlice: (all: Record<string, any>) => {
    const revokeKinds = String(all.autoResponse.revokeKinds).split(',').map((k) => k.trim()).filter(Boolean);
    const lines: string[] = all.autoResponse.rules.length ? all.autoResponse.rules : defaultRules(revokeKinds);
    return { enabled: all.autoResponse.enabled as boolean, cooldownMs: (all.autoResponse.cooldownSeconds as number) * 1000, lines };
  },
  preflight: ({ lines }) => {
    try {
      return [{ name: 'autoResponse.rules', status: 'ok', message: `${parseRules(lines, DETECTOR_NAMES).length} rule(s): ${lines.join(' | ')}` }];
    } catch (err) {
      return [{ name: 'autoResponse.rules', status: 'fail', message: (err as Error).message, advice: 'see docs/detection.md for the rule syntax' }];
    }
  },
  create: ({ config, deps, clock, logger }) =>
    new AutoResponder(deps.detectors, config.enabled ? parseRules(config.lines, DETECTOR_NAMES) : [], deps.operations, deps.audit, clock, logger, config.cooldownMs),
});
