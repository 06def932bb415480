import t from 'tap';
import { auditIdentity, newAuditEventId } from '../../kernel/audit/event-id.ts';
import { isUuid } from '../../kernel/audit/bounds.ts';

/** The 48-bit time field of a UUID version 7, in ms since the epoch. */
const timeOf = (id: string) => Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16);

t.test('an audit event id is a UUID version 7 (RFC 9562) carrying its record time', async (t) => {
  const at = new Date('2026-11-30T08:15:42.123Z');
  const id = newAuditEventId(at);
  t.ok(isUuid(id), 'a UUID in the form every audit store and API accepts');
  t.equal(id[14], '7', 'version 7');
  t.match(id[19], /[89ab]/, 'the RFC variant');
  t.equal(timeOf(id), at.getTime(), "the time field is the record's occurredAt, to the millisecond");
  const identity = auditIdentity(at);
  t.equal(identity.occurredAt, '2026-11-30T08:15:42.123Z');
  t.equal(timeOf(identity.id), Date.parse(identity.occurredAt), "a record's id and occurredAt come from one reading");
});

t.test('ids sort in the order of their times, so the unique index on them grows at its end', async (t) => {
  const start = Date.parse('2026-11-30T08:00:00.000Z');
  // One id a millisecond: each sorts after the one before, whatever its random bits.
  const ids = Array.from({ length: 600 }, (_, i) => newAuditEventId(new Date(start + i)));
  t.same([...ids].sort(), ids);
});

t.test('ids stay unique across many refills of the random pool', async (t) => {
  // The random bits are drawn 256 ids at a time: 5,000 ids in one millisecond cross the refill 19 times.
  const at = new Date();
  const ids = Array.from({ length: 5000 }, () => newAuditEventId(at));
  t.equal(new Set(ids).size, ids.length);
  // 74 random bits an id: ids of one millisecond differ past the time field, not only in a counter.
  t.ok(new Set(ids.map((id) => id.slice(24))).size > 4990, 'the random tail differs from id to id');
});
