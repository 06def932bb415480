import type { ConfigFragment } from './stitch.ts';
import type { Logger } from '../kernel/ports/logger.ts';
import { schemaLeaves } from './stitch.ts';
import { WORKER_SLOT_ENV } from './workers.ts';

/** `true` boots with a warning per unknown variable instead of refusing to boot (a shared environment). */
export const ALLOW_UNKNOWN_ENV = 'SVC_ALLOW_UNKNOWN_ENV';

/**
 * SVC_* variables that are no setting in the schema but are not mistakes either: the config file's
 * name, read before the schema exists, the switch above, the slot a node's primary gives each of its
 * workers, and the `svc` CLI's own variables, which an operator's shell often holds beside the server's.
 */
const OTHER_KNOWN = [
  'SVC_CONFIG_FILE',
  ALLOW_UNKNOWN_ENV,
  WORKER_SLOT_ENV,
  'SVC_SERVER',
  'SVC_USER',
  'SVC_TOKEN',
  'SVC_MODEL',
  'SVC_PROMPT_ID',
  'SVC_CA_FILE',
  'SVC_CLIENT_CERT_FILE',
  'SVC_CLIENT_KEY_FILE',
];
/** The test suite's own variables (database URLs and the like), never read by the service. */
const TEST_PREFIX = 'SVC_TEST_';

export interface UnknownVariable {
  name: string;
  /** The known variable nearest to it by edit distance, when one is near enough to be the one meant. */
  closest?: string;
}

/**
 * Every SVC_* variable in the environment that no setting of the stitched schema (the base, the
 * built-in plugins' and the loaded third parties') reads, with the known name it most likely
 * misspells. Such a variable is silently ignored by the loader, so a typo (SVC_AUTH_HMAC_SECRT) would
 * otherwise boot on a default.
 */
export function unknownVariables(env: NodeJS.ProcessEnv, schema: ConfigFragment): UnknownVariable[] {
  const known = [
    ...new Set([...schemaLeaves(schema).flatMap(([, leaf]) => (leaf.env ? [String(leaf.env)] : [])), ...OTHER_KNOWN]),
  ];
  const knownSet = new Set(known);
  return Object.keys(env)
    .filter((name) => name.startsWith('SVC_') && !name.startsWith(TEST_PREFIX) && !knownSet.has(name))
    .sort()
    .map((name) => {
      const closest = nearest(name, known);
      return closest ? { name, closest } : { name };
    });
}

/** One sentence per variable, for a log line (`ignored`: the service boots without it) or an error message. */
export const describeUnknownVariable = (v: UnknownVariable, ignored = true): string =>
  `${v.name} is not a setting of svc-kms${ignored ? ' and is ignored' : ''}${v.closest ? `; did you mean ${v.closest}?` : ''}`;

/**
 * Refuses to go on while an SVC_* variable is no setting, unless SVC_ALLOW_UNKNOWN_ENV=true: a misspelt
 * SVC_SECURITY_PREFLIGHT would otherwise boot in warn mode, and a misspelt secret on a default.
 */
export function refuseUnknownVariables(unknown: UnknownVariable[], env: NodeJS.ProcessEnv): void {
  const allow = env[ALLOW_UNKNOWN_ENV];
  if (allow !== undefined && allow !== 'true' && allow !== 'false')
    throw new Error(`${ALLOW_UNKNOWN_ENV} must be true or false`);
  if (unknown.length === 0 || allow === 'true') return;
  throw new Error(
    `the environment holds SVC_* variables that are no setting (${ALLOW_UNKNOWN_ENV}=true boots with a warning instead):\n${unknown.map((v) => `  - ${describeUnknownVariable(v, false)}`).join('\n')}`,
  );
}

/**
 * The candidate nearest to `name`, if it is within a third of the name's length in edits (a typo, not another word).
 */
function nearest(name: string, candidates: string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const d = editDistance(name, candidate);
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  const body = name.length - 'SVC_'.length;
  return bestDistance <= Math.max(2, Math.floor(body / 3)) ? best : undefined;
}

/** Damerau-Levenshtein distance (optimal string alignment): a swap of two neighbours is one edit. */
export function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}

/** One warning line per unknown variable, naming it and the variable it probably misspells. */
export function warnUnknownVariables(unknown: UnknownVariable[], logger: Pick<Logger, 'warn'>): void {
  for (const v of unknown)
    logger.warn(describeUnknownVariable(v), { variable: v.name, ...(v.closest ? { closest: v.closest } : {}) });
}

/**
 * A failed validation's message, with the unknown variables after it: a typo in a name is often why a value is missing.
 */
export function withUnknownVariables<T>(load: () => T, unknown: UnknownVariable[]): T {
  try {
    return load();
  } catch (err) {
    if (unknown.length === 0) throw err;
    throw new Error(`${(err as Error).message}\n${unknown.map((v) => `  - ${describeUnknownVariable(v)}`).join('\n')}`);
  }
}
