import type { AuditRecord } from '../../../kernel/model/index.ts';
import type { AuditSink } from '../../../kernel/ports/audit-sink.ts';

// SPEC 6's stdout shape names the two lifecycle ops after their journal events.
const OP_NAMES: Record<string, string> = { Create: 'KeyCreated', Activate: 'KeyActivated' };
const LIFTED = ['keyVersion', 'alg', 'severity', 'reason', 'previousVersion', 'currentVersion'];

export type LineWriter = (line: string, done: (err?: Error | null) => void) => void;

const stdoutWriter: LineWriter = (line, done) => {
  process.stdout.write(line, done);
};

/**
 * One JSON object per line on stdout (SPEC 6): ts, actor, actorKind, op, keyId, outcome, the
 * relevant context values lifted to the top, then the full context. Not queryable.
 */
export class StdoutAuditSink implements AuditSink {
  constructor(private readonly out: LineWriter = stdoutWriter) {}

  toLine(r: AuditRecord): string {
    const line: Record<string, unknown> = {
      ts: r.occurredAt,
      actor: r.principal.subject,
      actorKind: r.principal.kind,
      op: OP_NAMES[r.operation] ?? r.operation,
      keyId: r.resource,
      outcome: r.outcome,
      correlationId: r.correlationId,
    };
    for (const key of LIFTED) if (r.context[key] !== undefined) line[key] = r.context[key];
    line.context = r.context;
    return `${JSON.stringify(line)}\n`;
  }

  write(record: AuditRecord): Promise<void> {
    const line = this.toLine(record);
    return new Promise((resolve, reject) => this.out(line, (err) => (err ? reject(err) : resolve())));
  }
}
