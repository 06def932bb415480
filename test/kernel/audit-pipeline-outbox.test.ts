import t from 'tap';
import { AuditPipeline, OUTBOX_ACK_BATCH, type AuditOutbox } from '../../kernel/audit/pipeline.ts';
import { createStderrLogger } from '../../kernel/logger.ts';
import type { AuditRecord } from '../../kernel/model/index.ts';

const quiet = createStderrLogger('error', () => {});
const record = (id: string): AuditRecord => ({
  id,
  occurredAt: '2026-01-01T00:00:00.000Z',
  principal: { subject: 'mallory', kind: 'Human' },
  operation: 'Destroy',
  resource: `key-${id}`,
  outcome: 'Success',
  context: {},
  correlationId: `req-${id}`,
});
const outbox: AuditOutbox = { pendingAudit: async () => [], ackAudit: async () => {} };

t.test(
  'with the primary sink down, the detectors still see a change that is acknowledged from the outbox, and only that',
  async (t) => {
    const failing = { write: async () => Promise.reject(new Error('disk full')) };
    const audit = new AuditPipeline(failing, [], quiet, outbox);
    const seen: string[] = [];
    audit.onRecord((r) => seen.push(r.id));
    await t.rejects(
      audit.record(record('journaled'), true),
      /disk full/,
      'the failure still reaches the operation pipeline',
    );
    await t.rejects(audit.record(record('read'), false), /disk full/);
    t.same(
      seen,
      ['journaled'],
      'a destroy during an audit outage is not hidden from the detectors; a refused read is not seen as done',
    );
  },
);

t.test(
  'outbox acknowledgements of records stored one after another share one ' +
    'delete; a full batch goes at once; stop sends the rest',
  async (t) => {
    const deletes: string[][] = [];
    const counting: AuditOutbox = { pendingAudit: async () => [], ackAudit: async (ids) => void deletes.push(ids) };
    const stored = { write: async () => {} };
    // A delay no test run reaches: only the batch size and stop() may send acknowledgements.
    const audit = new AuditPipeline(stored, [], quiet, counting, { node: 'n', dataDir: 'd', ackDelayMs: 3_600_000 });
    for (let i = 0; i < 40; i++) {
      await audit.record(record(`change-${i}`), true);
      await new Promise((resolve) => setImmediate(resolve)); // each in an event-loop turn of its own, as requests are
    }
    t.same(deletes, [], 'forty state changes, forty turns: no commit yet');
    for (let i = 40; i < OUTBOX_ACK_BATCH; i++) await audit.record(record(`change-${i}`), true);
    t.equal(deletes.length, 1, `the ${OUTBOX_ACK_BATCH}th acknowledgement sends the batch without waiting`);
    t.equal(deletes[0]!.length, OUTBOX_ACK_BATCH);
    await audit.record(record('late'), true);
    await audit.record(record('read'), false);
    await audit.stop();
    t.same(
      deletes.slice(1),
      [['late']],
      'stop acknowledges what is pending; a record with no outbox entry is never acknowledged',
    );
  },
);
