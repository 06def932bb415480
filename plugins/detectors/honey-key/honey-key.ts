import type { AuditRecord, Detector, Finding } from '../../../kernel/index.ts';

const MAX_TOUCHES = 100_000;

/**
 * HoneyKey: a key nobody legitimate uses. An Agent touching one is reported High at the
 * first touch (once per agent and key); Humans are audited like anyone but not reported; Create and
 * Locate records are skipped.
 */
export class HoneyKeyDetector implements Detector {
  readonly name = 'HoneyKey';
  private readonly touched = new Set<string>();

  constructor(private readonly honeyKeys: ReadonlySet<string>) {}

  observe(r: AuditRecord): Finding[] {
    if (
      this.honeyKeys.size === 0 ||
      r.principal.kind !== 'Agent' ||
      r.operation === 'Create' ||
      r.operation === 'Locate'
    )
      return [];
    const keyId = r.resource.replace(/^key:/, '').toLowerCase();
    if (!this.honeyKeys.has(keyId)) return [];
    const touch = `${r.principal.subject}|${keyId}`;
    if (this.touched.has(touch)) return [];
    if (this.touched.size >= MAX_TOUCHES) this.touched.clear();
    this.touched.add(touch);
    return [
      {
        severity: 'High',
        actor: r.principal,
        details: { resource: keyId, operation: r.operation },
        message: `agent touched honey key ${keyId} (${r.operation})`,
      },
    ];
  }
}
