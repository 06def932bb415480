import { Counter, type Registry } from 'prom-client';
import type { ResponseObserver } from './auto-responder.ts';

/** Detector findings by detector and severity, and auto-response actions by action and result. */
export function responseMetrics(registry: Registry): ResponseObserver {
  const findings = new Counter<'detector' | 'severity'>({
    name: 'svc_detector_findings_total',
    help: 'Findings of the anomaly detectors, by detector and severity.',
    labelNames: ['detector', 'severity'],
    registers: [registry],
  });
  const actions = new Counter<'action' | 'result'>({
    name: 'svc_auto_response_actions_total',
    help: 'Actions the auto-responder took, by action and result (success, failed).',
    labelNames: ['action', 'result'],
    registers: [registry],
  });
  return {
    found: (detector, severity) => findings.labels({ detector, severity }).inc(),
    acted: (action, result) => actions.labels({ action, result }).inc(),
  };
}
