import { randomBytes, randomUUID } from 'node:crypto';
import type { Test } from 'tap';
import {
  type AccessKeyRecord,
  AccessKeyIdTaken,
  AccessKeyLimitReached,
  type AuditRecord,
  isAccessKeyId,
  type KeyJournal,
  type Principal,
} from '../kernel/index.ts';

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** A fresh id of the access key form; each test's own, as the SQL backends share one storage between tests. */
const newId = (): string => {
  const id = `AKSV${[...randomBytes(16)].map((b) => BASE32[b % 32]).join('')}`;
  if (!isAccessKeyId(id)) throw new Error(`the suite made a bad id ${id}`);
  return id;
};

const human = (subject: string, groups: string[] = ['kms-admins', 'zoë 🔑']): Principal => ({
  kind: 'Human',
  subject,
  groups,
});
const service = (subject: string): Principal => ({ kind: 'Service', subject, groups: [] });

const keyFor = (principal: Principal, extra: Partial<AccessKeyRecord> = {}): AccessKeyRecord => ({
  accessKeyId: newId(),
  principal,
  sealedSecret: { kekId: 'local:contract-kek', blob: randomBytes(60) },
  createdAt: '2026-01-01T00:00:00.000Z',
  createdBy: 'alice',
  ...extra,
});

const record = (): AuditRecord => ({
  id: randomUUID(),
  occurredAt: '2000-01-01T00:00:00.000Z',
  principal: { subject: 'alice', kind: 'Human' },
  operation: 'Create',
  resource: 'access-key:x',
  outcome: 'Success',
  context: {},
  correlationId: `req-${randomUUID()}`,
});

/**
 * The conformance suite of the access key store every journal backend keeps (journal.accessKeys). `open`
 * gives a started journal; on the SQL backends each `open` is the same storage, so every test uses
 * subjects and ids of its own. `reopen` opens a second instance over the same storage, where there is one.
 */
export function accessKeyStoreContract(
  t: Test,
  open: () => Promise<KeyJournal>,
  reopen?: () => Promise<KeyJournal>,
): void {
  t.test('access keys: a created key reads back field for field; an unknown id reads as none', async (t) => {
    const j = await open();
    const created = keyFor(human(`zoë-${randomUUID()} 🔑`), { createdBy: 'ünïcode créateur' });
    await j.accessKeys.create(created);
    const back = await j.accessKeys.get(created.accessKeyId);
    t.same(back, created, 'every field, the groups, unicode and the sealed bytes included');
    t.ok(Buffer.isBuffer(back?.sealedSecret.blob), 'the sealed secret reads back as a Buffer');
    t.equal(await j.accessKeys.get(newId()), undefined);
    const other = keyFor(service(`svc-${randomUUID()}`));
    await j.accessKeys.create(other);
    t.same((await j.accessKeys.get(other.accessKeyId))?.principal, other.principal, 'a Service snapshot too');
    await j.stop?.();
  });

  t.test('access keys: an id that is taken is refused and changes nothing', async (t) => {
    const j = await open();
    const first = keyFor(human(`taken-${randomUUID()}`));
    await j.accessKeys.create(first);
    const second = keyFor(human(`other-${randomUUID()}`), { accessKeyId: first.accessKeyId });
    await t.rejects(j.accessKeys.create(second, { maxPerPrincipal: 10, audit: record() }), AccessKeyIdTaken);
    t.same(await j.accessKeys.get(first.accessKeyId), first, 'the first key is as it was');
    t.same(await j.accessKeys.list({ principal: second.principal.subject, limit: 10 }), []);
    await j.stop?.();
  });

  t.test('access keys: listed by id, after an id, at most limit, those of one subject when asked', async (t) => {
    const j = await open();
    const subject = `lister-${randomUUID()}`;
    const mine = [keyFor(human(subject)), keyFor(human(subject)), keyFor(service(subject))];
    const others = [keyFor(human(`someone-${randomUUID()}`))];
    for (const k of [...mine, ...others]) await j.accessKeys.create(k);
    const ids = mine.map((k) => k.accessKeyId).sort();
    const listed = await j.accessKeys.list({ principal: subject, limit: 10 });
    t.same(
      listed.map((k) => k.accessKeyId),
      ids,
      "the subject's keys, a Human's and a Service's alike, by id",
    );
    t.same(
      listed.find((k) => k.accessKeyId === mine[0]!.accessKeyId),
      mine[0],
      'each as created',
    );
    t.same(
      (await j.accessKeys.list({ principal: subject, limit: 2 })).map((k) => k.accessKeyId),
      ids.slice(0, 2),
    );
    t.same(
      (await j.accessKeys.list({ principal: subject, limit: 10, after: ids[0] })).map((k) => k.accessKeyId),
      ids.slice(1),
    );
    t.same(await j.accessKeys.list({ principal: subject, limit: 10, after: ids[2] }), []);
    t.same(await j.accessKeys.list({ principal: subject, limit: 0 }), []);
    const all = (await j.accessKeys.list({ limit: 100_000 })).map((k) => k.accessKeyId);
    t.same(all, [...all].sort(), 'without a subject: every key, by id');
    for (const k of [...mine, ...others]) t.ok(all.includes(k.accessKeyId));
    await j.stop?.();
  });

  t.test('access keys: remove deletes once; the change and its audit record commit together', async (t) => {
    const j = await open();
    const key = keyFor(human(`remover-${randomUUID()}`));
    const made = record();
    await j.accessKeys.create(key, { audit: made });
    const removed = record();
    const missed = record();
    t.equal(await j.accessKeys.remove(key.accessKeyId, removed), true);
    t.equal(await j.accessKeys.get(key.accessKeyId), undefined, 'gone at once');
    t.equal(await j.accessKeys.remove(key.accessKeyId, missed), false, 'a second remove finds nothing');
    t.equal(await j.accessKeys.remove(newId()), false, 'nor does one of an unknown id');
    const ids = (await j.pendingAudit('2000-01-02T00:00:00.000Z', 100_000)).map((r) => r.id);
    t.ok(ids.includes(made.id), "the create's record is in the outbox");
    t.ok(ids.includes(removed.id), "the remove's record is in the outbox");
    t.notOk(ids.includes(missed.id), 'a remove that changed nothing wrote none');
    await j.ackAudit([made.id, removed.id]);
    await j.stop?.();
  });

  t.test('access keys: at most maxPerPrincipal per principal, a Human and a Service counted apart', async (t) => {
    const j = await open();
    const subject = `holder-${randomUUID()}`;
    for (let i = 0; i < 3; i++) await j.accessKeys.create(keyFor(human(subject)), { maxPerPrincipal: 3 });
    const refused = keyFor(human(subject));
    const audit = record();
    await t.rejects(j.accessKeys.create(refused, { maxPerPrincipal: 3, audit }), AccessKeyLimitReached);
    t.equal(await j.accessKeys.get(refused.accessKeyId), undefined, 'the refused key is not stored');
    const ids = (await j.pendingAudit('2000-01-02T00:00:00.000Z', 100_000)).map((r) => r.id);
    t.notOk(ids.includes(audit.id), 'nor its audit record');
    await j.accessKeys.create(keyFor(service(subject)), { maxPerPrincipal: 3 });
    t.pass('a Service of the same subject is another principal');
    await j.accessKeys.create(keyFor(human(subject)));
    t.pass('without a limit, create does not count');
    const held = await j.accessKeys.list({ principal: subject, limit: 100 });
    const humans = held.filter((k) => k.principal.kind === 'Human');
    t.equal(humans.length, 4);
    t.ok(await j.accessKeys.remove(humans[0]!.accessKeyId));
    t.ok(await j.accessKeys.remove(humans[1]!.accessKeyId));
    await j.accessKeys.create(keyFor(human(subject)), { maxPerPrincipal: 3 });
    t.pass('a removed key frees its place');
    await j.stop?.();
  });

  t.test('access keys: of concurrent creates for one principal, no more than its free places succeed', async (t) => {
    const j = await open();
    const subject = `racer-${randomUUID()}`;
    // Twice: the first race is also over who writes the principal's holder row, the second over a row that exists.
    for (const held of [0, 3]) {
      const results = await Promise.allSettled(
        Array.from({ length: 8 }, () => j.accessKeys.create(keyFor(human(subject)), { maxPerPrincipal: held + 3 })),
      );
      t.equal(results.filter((r) => r.status === 'fulfilled').length, 3, `three places were free (${held} held)`);
      for (const r of results)
        if (r.status === 'rejected') t.type(r.reason, AccessKeyLimitReached, 'the others are refused for the limit');
      t.equal((await j.accessKeys.list({ principal: subject, limit: 100 })).length, held + 3);
    }
    await j.stop?.();
  });

  if (reopen)
    t.test('access keys: a key created or removed through another instance is seen at once', async (t) => {
      const a = await open();
      const b = await reopen();
      const key = keyFor(human(`nodes-${randomUUID()}`));
      t.equal(await a.accessKeys.get(key.accessKeyId), undefined, 'read before it exists');
      await b.accessKeys.create(key);
      t.same(await a.accessKeys.get(key.accessKeyId), key, 'the other instance sees the new key');
      t.ok(await b.accessKeys.remove(key.accessKeyId));
      t.equal(await a.accessKeys.get(key.accessKeyId), undefined, 'and its removal, at the next get');
      await a.stop?.();
      await b.stop?.();
    });
}
