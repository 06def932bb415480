import { fstatSync, writeSync } from 'node:fs';
import { type AuditRecord, type AuditSink, GroupCommit } from '../../../kernel/index.ts';

// The stdout line names the two lifecycle ops after their journal events.
const OP_NAMES: Record<string, string> = { Create: 'KeyCreated', Activate: 'KeyActivated' };
const LIFTED = ['keyVersion', 'alg', 'severity', 'reason', 'previousVersion', 'currentVersion'];

/** Writes a batch of lines; throws when they could not be written. */
export type BatchWriter = (text: string) => void;

const stdoutWriter: BatchWriter = (text) => {
  // fd 1 directly and synchronously: the write has happened when this returns, so a record is never
  // acknowledged while still sitting in a stream buffer.
  let offset = 0;
  const bytes = Buffer.from(text);
  while (offset < bytes.length) offset += writeSync(1, bytes, offset);
};

/**
 * One JSON object per line on stdout: ts, actor, actorKind, op, keyId, outcome, the
 * relevant context values lifted to the top, then the full context. Not queryable.
 * Records written in the same event-loop turn are flushed with one write (group commit): each
 * request still waits for its own line to be written before it answers.
 */
export class StdoutAuditSink implements AuditSink {
  private readonly lines: GroupCommit<string>;
  private lastFailure: string | undefined;

  constructor(out: BatchWriter = stdoutWriter) {
    this.lines = new GroupCommit((batch) => {
      try {
        out(batch.join(''));
        this.lastFailure = undefined;
      } catch (err) {
        this.lastFailure = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
        throw err;
      }
    });
  }

  /**
   * Ready while stdout is open and the last write succeeded: a full disk under a redirected stdout
   * (ENOSPC) or a closed pipe (EPIPE) reads unready until a write gets through again.
   */
  async probe(): Promise<void> {
    fstatSync(1);
    if (this.lastFailure) throw new Error(`the last write to stdout failed (${this.lastFailure})`);
  }

  toLine(r: AuditRecord): string {
    const line: Record<string, unknown> = {
      id: r.id,
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
    return this.lines.add(this.toLine(record));
  }
}
