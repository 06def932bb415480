import { type PrincipalKind, SEVERITIES, type Severity } from '../../kernel/index.ts';

export const ACTIONS = ['Alert', 'Disable', 'Revoke', 'Deactivate', 'Freeze', 'RevokeAgent'] as const;
export type Action = (typeof ACTIONS)[number];
const KINDS: PrincipalKind[] = ['Human', 'Service', 'Agent'];

export interface Rule {
  line: string;
  detector: string; // or *
  severity: Severity | '*';
  /** Every action of the line runs, in order. */
  actions: Action[];
  kinds?: PrincipalKind[];
}

/**
 * The shipped rules: a High finding about an agent revokes the agent and disables the key (when the agent
 * used its material with success within the finding's window); for the other kinds named in
 * autoResponse.revokeKinds the key is disabled; everything else High or Medium is an Alert; Low does
 * nothing. Disable, not Revoke: the pause is reversible, so the key's owner does not pay for good for an
 * agent's misbehaviour, and a Human decides (POST /v1/keys/{id}/enable, or revoke it). `Revoke` stays
 * available in configured rules.
 */
export function defaultRules(revokeKinds: string[]): string[] {
  const others = revokeKinds.filter((k) => k !== 'Agent');
  return [
    ...(revokeKinds.includes('Agent')
      ? ['HoneyKey:High -> RevokeAgent, Disable for Agent', '*:High -> RevokeAgent, Disable for Agent']
      : []),
    ...(others.length ? [`*:High -> Disable for ${others.join(',')}`] : []),
    '*:High -> Alert',
    '*:Medium -> Alert',
  ];
}

const LINE =
  /^\s*([A-Za-z*]+)\s*:\s*([A-Za-z*]+)\s*->\s*([A-Za-z]+(?:\s*,\s*[A-Za-z]+)*)\s*(?:for\s+([A-Za-z, ]+))?\s*$/;

/** Parses `DETECTOR:SEVERITY -> ACTION[, ACTION...] [for KIND[,KIND]]` lines; every bad line is named in one error. */
export function parseRules(lines: string[], detectors: string[]): Rule[] {
  const problems: string[] = [];
  const rules = lines.flatMap((line): Rule[] => {
    const m = LINE.exec(line);
    if (!m) {
      problems.push(`"${line}" is not DETECTOR:SEVERITY -> ACTION[, ACTION...] [for KIND,...]`);
      return [];
    }
    const [, detector, severity, actionList, kinds] = m as unknown as [
      string,
      string,
      string,
      string,
      string | undefined,
    ];
    const actions = actionList.split(',').map((a) => a.trim());
    if (detector !== '*' && !detectors.includes(detector))
      problems.push(`"${line}": unknown detector ${detector} (known: ${detectors.join(', ')})`);
    if (severity !== '*' && !(SEVERITIES as readonly string[]).includes(severity))
      problems.push(`"${line}": unknown severity ${severity}`);
    for (const action of actions)
      if (!(ACTIONS as readonly string[]).includes(action))
        problems.push(`"${line}": unknown action ${action} (known: ${ACTIONS.join(', ')})`);
    const kindList = kinds
      ?.split(',')
      .map((k) => k.trim())
      .filter(Boolean);
    for (const k of kindList ?? [])
      if (!KINDS.includes(k as PrincipalKind)) problems.push(`"${line}": unknown principal kind ${k}`);
    return [
      {
        line,
        detector,
        severity: severity as Rule['severity'],
        actions: [...new Set(actions)] as Action[],
        ...(kindList ? { kinds: kindList as PrincipalKind[] } : {}),
      },
    ];
  });
  if (problems.length) throw new Error(`autoResponse.rules: ${problems.join('; ')}`);
  return rules;
}

/** The first rule that matches wins. */
export function matchRule(rules: Rule[], detector: string, severity: Severity, kind: PrincipalKind): Rule | undefined {
  return rules.find(
    (r) =>
      (r.detector === '*' || r.detector === detector) &&
      (r.severity === '*' || r.severity === severity) &&
      (!r.kinds || r.kinds.includes(kind)),
  );
}
