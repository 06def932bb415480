import { randomUUID } from 'node:crypto';
import type { AuditRecord } from '../../kernel/model/index.ts';
import type { AuditSink } from '../../kernel/ports/audit-sink.ts';

const DAY_MS = 86_400_000;
const OPS = ['Encrypt', 'Decrypt', 'Sign', 'Verify', 'Get', 'Wrap'];

/**
 * Writes `rows` audit records through a started SQL audit sink, so they are chained exactly as the
 * service chains its own (the sink's node id is the node the service will run as, and the service's
 * first record continues that chain). They span the last `days` days oldest first, from 50 agents and
 * 5 Humans over 1,000 keys, with risk stamps and some refusals: what an advisor scan and a verify read.
 */
export async function seedAudit(sink: AuditSink, rows: number, now: Date, days = 30): Promise<void> {
  const first = now.getTime() - days * DAY_MS;
  const step = (days * DAY_MS - 60_000) / rows;
  const keys = Array.from({ length: 1000 }, () => randomUUID());
  for (let i = 0; i < rows; i += 1000) {
    const batch: Array<Promise<unknown>> = [];
    for (let j = i; j < Math.min(rows, i + 1000); j++) {
      const agent = j % 10 !== 0;
      const record: AuditRecord = {
        id: randomUUID(),
        occurredAt: new Date(first + j * step).toISOString(),
        principal: agent ? { subject: `agent-${j % 50}`, kind: 'Agent' } : { subject: `human-${j % 5}`, kind: 'Human' },
        operation: OPS[j % OPS.length]!,
        resource: keys[(j * 7) % keys.length]!,
        outcome: j % 13 === 0 ? 'PermissionDenied' : 'Success',
        context: {
          'source.ip': `10.0.${j % 7}.${j % 200}`,
          'risk.score': String(j % 97),
          'outcome.decision': 'Allow',
          keyVersion: '1',
        },
        correlationId: randomUUID(),
      };
      batch.push(sink.write(record));
    }
    await Promise.all(batch);
  }
}
