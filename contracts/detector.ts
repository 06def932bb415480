import type { Test } from 'tap';
import { type AuditRecord, type Detector, SEVERITIES } from '../kernel/index.ts';

const OPS = ['Create', 'Get', 'Sign', 'Encrypt', 'Rotate', 'Compromise', 'Destroy', 'Revoke', 'Query', 'Locate'];
const KINDS = ['Human', 'Service', 'Agent'] as const;

/** A varied stream of records: many actors, operations, hours, addresses and keys, some fields odd. */
export function recordStream(n: number, start = Date.parse('2026-01-05T00:00:00.000Z')): AuditRecord[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `rec-${i}`,
    occurredAt: new Date(start + i * 97_000).toISOString(),
    principal: { subject: i % 13 === 0 ? '' : `actor-${i % 37}`, kind: KINDS[i % 3]! },
    operation: OPS[i % OPS.length]!,
    resource: i % 11 === 0 ? 'name:odd' : `key-${i % 7}`,
    outcome: i % 5 === 0 ? 'IllegalOperation' : 'Success',
    context: (i % 17 === 0 ? {} : { 'source.ip': `10.0.${i % 4}.${i % 9}` }) as Record<string, string>,
    correlationId: `r${i}`,
  }));
}

/**
 * The conformance suite every detector passes (built-in or third-party): a name, no exceptions on any
 * record, well-formed findings about the record's own actor, and the same findings for the same stream.
 */
export function detectorContract(t: Test, make: () => Detector): void {
  t.test('has a name', async (t) => {
    t.match(make().name, /^[A-Za-z][A-Za-z0-9]*$/);
  });

  t.test("never throws, and every finding is well formed and about the record's actor", async (t) => {
    const detector = make();
    const problems: string[] = [];
    let findings = 0;
    for (const record of recordStream(3000)) {
      const out = detector.observe(record);
      if (!Array.isArray(out)) problems.push(`${record.correlationId}: not a list`);
      for (const f of out) {
        findings++;
        if (!(SEVERITIES as readonly string[]).includes(f.severity))
          problems.push(`${record.correlationId}: severity ${f.severity}`);
        if (JSON.stringify(f.actor) !== JSON.stringify(record.principal))
          problems.push(`${record.correlationId}: actor is not the record's principal`);
        if (typeof f.details.resource !== 'string') problems.push(`${record.correlationId}: details.resource missing`);
        if (!f.message) problems.push(`${record.correlationId}: empty message`);
      }
    }
    t.same(problems, [], `${findings} findings over 3000 records, all well formed`);
  });

  t.test('is deterministic: the same stream gives the same findings', async (t) => {
    const run = () => {
      const detector = make();
      return recordStream(500)
        .map((r) => JSON.stringify(detector.observe(r)))
        .join('|');
    };
    t.equal(run(), run());
  });
}
