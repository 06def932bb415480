import { type ManagedKey, SvcError } from '../../kernel/index.ts';

// A Map: the unit is the caller's text, and on an object `TimeBased:1constructor` would find a function.
const UNITS = new Map(
  Object.entries({
    s: 1,
    sec: 1,
    seconds: 1,
    m: 60,
    min: 60,
    minutes: 60,
    h: 3600,
    hours: 3600,
    d: 86400,
    day: 86400,
    days: 86400,
  }),
);

export type RotationPolicy =
  | { kind: 'Manual' }
  | { kind: 'TimeBased'; seconds: number }
  | { kind: 'OpCountBased'; count: number };

// Policies are checked on every cryptographic call; there are few distinct texts, so parse each once.
const parsed = new Map<string, RotationPolicy>();

/**
 * Parses a key's RotationPolicy text: Manual, TimeBased:<duration> (7days, 12h, 90m, 3600s) or OpCountBased:<count>.
 */
export function parseRotationPolicy(text: string): RotationPolicy {
  let policy = parsed.get(text);
  if (!policy) {
    policy = parse(text);
    if (parsed.size < 1000) parsed.set(text, policy);
  }
  return policy;
}

function parse(text: string): RotationPolicy {
  if (text === 'Manual') return { kind: 'Manual' };
  const time = /^TimeBased:(\d+)\s*([a-z]+)$/.exec(text);
  const unit = time && UNITS.get(time[2]!);
  if (time && unit && Number(time[1]) > 0) return { kind: 'TimeBased', seconds: Number(time[1]) * unit };
  const ops = /^OpCountBased:(\d+)$/.exec(text);
  if (ops && Number(ops[1]) > 0) return { kind: 'OpCountBased', count: Number(ops[1]) };
  throw new SvcError(
    'InvalidField',
    'policy must be Manual, TimeBased:<n><s|m|h|days> (for example TimeBased:7days) or OpCountBased:<n>',
  );
}

/** True when a TimeBased key's current version is older than its period. */
export function timeRotationDue(key: ManagedKey, now: Date): boolean {
  if (key.rotationPolicy === 'Manual') return false;
  const policy = parseRotationPolicy(key.rotationPolicy);
  if (policy.kind !== 'TimeBased' || key.state !== 'Active') return false;
  const since = Date.parse(key.versions[key.currentVersion]?.createdAt ?? key.createdAt);
  return now.getTime() - since >= policy.seconds * 1000;
}
