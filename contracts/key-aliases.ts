import { randomUUID } from 'node:crypto';
import type { Test } from 'tap';
import { AliasTaken, type AuditRecord, type KeyEvent, type KeyJournal } from '../kernel/index.ts';

const at = '2026-01-01T00:00:00.000Z';
const aliasName = () => `alias/contract-${randomUUID()}`;
const keyId = () => randomUUID();
const record = (resource: string): AuditRecord => ({
  id: randomUUID(),
  occurredAt: at,
  principal: { subject: 'alice', kind: 'Human' },
  operation: 'AddAttribute',
  resource,
  outcome: 'Success',
  context: {},
  correlationId: `req-${randomUUID()}`,
});
const created = (): KeyEvent => ({
  type: 'KeyCreated',
  at,
  by: 'alice',
  owner: 'alice',
  materialId: randomUUID(),
  spec: {
    name: `aliased-${randomUUID()}`,
    algorithm: 'AES',
    sizeBits: 256,
    objectType: 'SymmetricKey',
    exportable: false,
  },
});

/**
 * The conformance suite of the aliases every journal backend keeps (journal.aliases, kernel/ports/key-aliases.ts).
 * `open` gives a started journal over fresh storage; `reopen` a new instance over the same storage.
 */
export function keyAliasesContract(t: Test, open: () => Promise<KeyJournal>, reopen?: () => Promise<KeyJournal>): void {
  t.test('aliases: create, resolve, list by name and by key, move only from the key named, remove', async (t) => {
    const j = await open();
    const [k1, k2] = [keyId(), keyId()];
    const [a, b] = [aliasName(), aliasName()].sort();
    await j.aliases.create({ name: a!, keyId: k1, createdAt: at });
    await j.aliases.create({ name: b!, keyId: k1, createdAt: at });
    t.equal(await j.aliases.resolve(a!), k1);
    t.equal(await j.aliases.resolve('alias/never-made'), undefined);
    t.same(
      (await j.aliases.list({ keyId: k1, limit: 10 })).map((x) => x.name),
      [a, b],
      "a key's aliases, by name",
    );
    t.same(
      (await j.aliases.list({ keyId: k1, after: a!, limit: 10 })).map((x) => x.name),
      [b],
      'paged after a name',
    );
    t.same([...(await j.aliases.ofKeys([k1, k2])).entries()], [[k1, [a, b]]], 'ofKeys: only keys that have aliases');
    t.equal(await j.aliases.move(a!, k2, k1), false, 'a move from a key the alias does not name changes nothing');
    t.equal(await j.aliases.move(a!, k1, k2), true);
    t.equal(await j.aliases.resolve(a!), k2, 'moved');
    t.equal(await j.aliases.remove(a!, k1), false, 'a remove naming the wrong key changes nothing');
    t.equal(await j.aliases.remove(a!, k2), true);
    t.equal(await j.aliases.resolve(a!), undefined, 'removed');
    if (reopen) {
      const again = await reopen();
      t.equal(await again.aliases.resolve(b!), k1, 'kept across a reopen');
      await again.stop?.();
    }
    await j.stop?.();
  });

  t.test('aliases: a taken name is AliasTaken, also when writers race; only the winner is audited', async (t) => {
    const j = await open();
    const name = aliasName();
    await j.aliases.create({ name, keyId: keyId(), createdAt: at });
    await t.rejects(j.aliases.create({ name, keyId: keyId(), createdAt: at }), AliasTaken);
    const raced = aliasName();
    const audits = Array.from({ length: 5 }, () => record(raced));
    const results = await Promise.allSettled(
      audits.map((audit) => j.aliases.create({ name: raced, keyId: keyId(), createdAt: at }, audit)),
    );
    t.equal(results.filter((r) => r.status === 'fulfilled').length, 1, 'one of five racing creates wins');
    t.ok(
      results.every((r) => r.status === 'fulfilled' || r.reason instanceof AliasTaken),
      'the others are AliasTaken',
    );
    const pending = new Set((await j.pendingAudit('9999-01-01T00:00:00.000Z', 1000)).map((r) => r.id));
    t.equal(audits.filter((r) => pending.has(r.id)).length, 1, "only the winner's record is in the outbox");
    await j.stop?.();
  });

  t.test("aliases: an append with Destroyed removes the key's aliases in its transaction", async (t) => {
    const j = await open();
    const id = keyId();
    await j.append(id, 0, [created()]);
    const name = aliasName();
    await j.aliases.create({ name, keyId: id, createdAt: at });
    await j.append(id, 1, [{ type: 'Destroyed', at, by: 'alice' }]);
    t.equal(await j.aliases.resolve(name), undefined, 'a destroyed key loses its aliases');
    await j.stop?.();
  });
}
