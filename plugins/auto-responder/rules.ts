import { SEVERITIES, type Severity } from '../../kernel/ports/detector.ts';
import type { PrincipalKind } from '../../kernel/model/index.ts';

export const ACTIONS = ['Alert', 'Revoke', 'Deactivate', 'Freeze'] as const;
export type Action = (typeof ACTIONS)[number];
const KINDS: PrincipalKind[] = ['Human', 'Service', 'Agent'];

export interface Rule {
  line: string;
  detector: string; // or *
  severity: Severity | '*';
  action: Action;
  kinds?: PrincipalKind[];
}

/** The shipped rules (DECISIONS): High revokes for the revoke kinds and alerts otherwise; Medium alerts; Low nothing. */
export function defaultRules(revokeKinds: string[]): string[] {
  return [`*:High -> Revoke for ${revokeKinds.join(',')}`, '*:High -> Alert', '*:Medium -> Alert'];
}

const LINE = /^\s*([A-Za-z*]+)\s*:\s*([A-Za-z*]+)\s*->\s*([A-Za-z]+)\s*(?:for\s+([A-Za-z, ]+))?\s*$/;

/** Parses `DETECTOR:SEVERITY -> ACTION [for KIND[,KIND]]` lines; every bad line is named in one error. */
export function parseRules(lines: string[], detectors: string[]): Rule[] {
  const problems: string[] = [];
  const rules = lines.flatMap((line): Rule[] => {
    const m = LINE.exec(line);
    if (!m) return (problems.push(`"${line}" is not DETECTOR:SEVERITY -> ACTION [for KIND,...]`), []);
    const [, detector, severity, action, kinds] = m as unknown as [string, string, string, string, string | undefined];
    if (detector !== '*' && !detectors.includes(detector)) problems.push(`"${line}": unknown detector ${detector} (known: ${detectors.join(', ')})`);
    if (severity !== '*' && !(SEVERITIES as readonly string[]).includes(severity)) problems.push(`"${line}": unknown severity ${severity}`);
    if (!(ACTIONS as readonly string[]).includes(action)) problems.push(`"${line}": unknown action ${action} (known: ${ACTIONS.join(', ')})`);
    const kindList = kinds?.split(',').map((k) => k.trim()).filter(Boolean);
    for (const k of kindList ?? []) if (!KINDS.includes(k as PrincipalKind)) problems.push(`"${line}": unknown principal kind ${k}`);
    return [{ line, detector, severity: severity as Rule['severity'], action: action as Action, ...(kindList ? { kinds: kindList as PrincipalKind[] } : {}) }];
  });
  if (problems.length) throw new Error(`autoResponse.rules: ${problems.join('; ')}`);
  return rules;
}

/** The first rule that matches wins. */
export function matchRule(rules: Rule[], detector: string, severity: Severity, kind: PrincipalKind): Rule | undefined {
  return rules.find((r) => (r.detector === '*' || r.detector === detector) && (r.severity === '*' || r.severity === severity) && (!r.kinds || r.kinds.includes(kind)));
}
