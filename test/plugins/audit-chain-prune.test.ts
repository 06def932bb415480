import { randomUUID } from 'node:crypto';
import path from 'node:path';
import t from 'tap';
import { createStderrLogger } from '../../kernel/logger.ts';
import type { AuditRecord } from '../../kernel/model/index.ts';
import { KnexAuditSink } from '../../plugins/audit-sink/knex/knex-audit-sink.ts';
import { MemoryNodeRegistry } from '../../plugins/journal/memory/memory-node-registry.ts';
import { sqliteKnexSettings } from '../../plugins/sql-support/sqlite-connection.ts';
import { ManualClock, tempDir } from '../helpers/service.ts';

const DAY_MS = 86_400_000;
const record = (occurredAt: Date, subject: string): AuditRecord => ({
  id: randomUUID(),
  occurredAt: occurredAt.toISOString(),
  principal: { subject, kind: 'Human' },
  operation: 'Sign',
  resource: randomUUID(),
  outcome: 'Success',
  context: {},
  correlationId: randomUUID(),
});

/**
 * Retention pruning keeps each chain whole: it removes a chain's oldest rows up to the first one inside
 * the retention period, and records in the journal's node registry the newest row it removed, which the
 * first row left links to. A record relayed late from the outbox (written after newer ones, with its own
 * older time) used to be pruned out of the middle of its chain, and verification then reported the chain
 * broken although nobody had touched it.
 */
t.test(
  'a late record older than the retention period is pruned with the rows ' +
    'before it, never out of the middle of its chain',
  async (t) => {
    const clock = new ManualClock(new Date('2026-06-01T00:00:00.000Z'));
    const registry = new MemoryNodeRegistry();
    const sink = new KnexAuditSink(
      sqliteKnexSettings(path.join(tempDir(), 'audit.db')),
      365,
      clock,
      createStderrLogger('error', () => {}),
      'kms-1',
      registry,
    );
    await sink.start();
    t.teardown(() => sink.stop());
    const now = clock.now().getTime();
    await sink.write(record(new Date(now - 10 * DAY_MS), 'recent'));
    await sink.write(record(new Date(now - 400 * DAY_MS), 'relayed-late'));
    await sink.write(record(new Date(now), 'newest'));

    t.equal(await sink.prune(), 0, 'the late record waits for the row before it to go');
    t.match(await sink.verify({ full: true }), { valid: true, checked: 3 });

    clock.advance(360 * DAY_MS);
    t.equal(await sink.prune(), 2, 'once the row before it is old too, both go');
    t.match(
      await sink.verify({ full: true }),
      { valid: true, checked: 1 },
      'the chain left starts where the prune left it',
    );
    t.match(
      (await registry.list()).find((n) => n.node === 'kms-1'),
      { pruned: { hash: /^[0-9a-f]{64}$/ } },
      'the registry knows the newest row pruned',
    );
  },
);
