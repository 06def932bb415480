/**
 * The preflight tree, the first step of boot: named checks over configuration alone, each ok, warn or fail,
 * each with advice. `devGrade` marks the development-grade settings that `enforce` refuses on an
 * exposed bind. It runs before any port is opened or resource acquired.
 */
export interface PreflightNode {
  name: string;
  status: 'ok' | 'warn' | 'fail';
  message: string;
  /** The risk of leaving it so, and what to do. */
  advice?: string;
  devGrade?: boolean;
  children?: PreflightNode[];
}

export type PreflightMode = 'warn' | 'enforce';

export interface PreflightVerdict {
  proceed: boolean;
  findings: PreflightNode[];
  banner: string;
}

function flatten(nodes: PreflightNode[]): PreflightNode[] {
  return nodes.flatMap((n) => [n, ...flatten(n.children ?? [])]);
}

/** Applies the mode: with enforce, a dev-grade finding fails the boot; a fail always does. */
export function judgePreflight(tree: PreflightNode[], mode: PreflightMode): PreflightVerdict {
  const findings = flatten(tree).filter((n) => n.status !== 'ok');
  const failing = findings.filter((n) => n.status === 'fail' || (mode === 'enforce' && n.devGrade));
  const lines = findings.map((n) => {
    const verdict = failing.includes(n) ? 'FAIL' : 'WARN';
    return `  [${verdict}] ${n.name}: ${n.message}${n.advice ? `\n         risk/advice: ${n.advice}` : ''}`;
  });
  const head = failing.length
    ? `preflight (${mode}): refusing to boot, ${failing.length} finding(s) not allowed on this bind`
    : `preflight (${mode}): ${findings.length} finding(s)`;
  return {
    proceed: failing.length === 0,
    findings,
    banner: findings.length ? [head, ...lines].join('\n') : '',
  };
}

/**
 * A development-grade setting: fine on a loopback bind, a finding on an exposed one (refused by
 * `enforce`). Each plugin that is development-grade reports itself with this.
 */
export function devGradeFinding(name: string, exposed: boolean, message: string, advice: string): PreflightNode {
  return { name, status: exposed ? 'warn' : 'ok', devGrade: true, message, advice };
}
