import t from 'tap';
import { AuditPipeline, type AuditOutbox } from '../../kernel/audit/pipeline.ts';
import { createStderrLogger } from '../../kernel/logger.ts';
import type { AuditRecord } from '../../kernel/model/index.ts';

const quiet = createStderrLogger('error', () => {});
const record = (id: string): AuditRecord => ({ id, occurredAt: '2026-01-01T00:00:00.000Z', principal: { subject: 'mallory', kind: 'Human' }, operation: 'Destroy', resource: `key-${id}`, outcome: 'Success', context: {}, correlationId: `req-${id}` });
const outbox: AuditOutbox = { pendingAudit: async () => [], ackAudit: async () => {} };

t.test('with the primary sink down, the detectors still see a change that is acknowledged from the outbox, and only that', async (t) => {
  const failing = { write: async () => Promise.reject(new Error('disk full')) };
  const audit = new AuditPipeline(failing, [], quiet, outbox);
  const seen: string[] = [];
  audit.onRecord((r) => seen.push(r.id));
  await t.rejects(audit.record(record('journaled'), true), /disk full/, 'the failure still reaches the operation pipeline');
  await t.rejects(audit.record(record('read'), false), /disk full/);
  t.same(seen, ['journaled'], 'a destroy during an audit outage is not hidden from the detectors; a refused read is not seen as done');
});
