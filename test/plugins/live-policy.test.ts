import path from 'node:path';
import t from 'tap';
import type { Logger, PolicyDocument, PolicyStore, Principal } from '../../kernel/index.ts';
import { systemClock } from '../../kernel/ports/clock.ts';
import { KnexJournal } from '../../plugins/journal/knex/knex-journal.ts';
import { MemoryJournal } from '../../plugins/journal/memory/memory-journal.ts';
import { administrationProblems } from '../../plugins/policy/api/policy-checks.ts';
import { LiveRoleBasedPolicy } from '../../plugins/policy/role-based/live-policy.ts';
import { policyDiff } from '../../plugins/policy/role-based/policy-diff.ts';
import { ifMatches, policyEtag } from '../../plugins/policy/role-based/policy-etag.ts';
import { sqliteKnexSettings } from '../../plugins/sql-support/sqlite-connection.ts';
import { tempDir } from '../helpers/service.ts';
import { until } from '../helpers/until.ts';

const human = (subject: string, groups: string[] = []): Principal => ({ kind: 'Human', subject, groups });
const KEY = '00000000-0000-4000-8000-000000000001';
const SEED: PolicyDocument = { roleBindings: { admins: ['Get', 'Administer'] }, subjectBindings: {} };

function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const log = (level: string) => (msg: string, fields?: Record<string, unknown>) =>
    lines.push(`${level} ${msg} ${JSON.stringify(fields ?? {})}`);
  return { lines, info: log('info'), warn: log('warn'), error: log('error') };
}

const live = (store: PolicyStore, seed = SEED, refreshMs = 1000, logger: Logger = recordingLogger()) =>
  new LiveRoleBasedPolicy({ store, seed, refreshMs, logger, clock: systemClock });

t.test('an empty journal is seeded with the configured bindings as version 1, audited as the system', async (t) => {
  const journal = new MemoryJournal();
  const policy = live(journal.policies);
  await policy.start();
  t.teardown(() => policy.stop());
  t.equal(policy.version.version, 1);
  t.same((await journal.policies.latest())?.document, SEED);
  t.equal((await journal.policies.latest())?.createdBy, 'configuration');
  const [record] = await journal.pendingAudit('9999', 10);
  t.match(record, {
    principal: { subject: 'svc-system', kind: 'Service' },
    operation: 'Administer',
    resource: 'policy',
    outcome: 'Success',
    context: { 'policy.version': '1', 'policy.diff': '+roleBindings.admins', 'policy.source': 'configuration' },
  });
  t.ok(policy.authorize(human('ann', ['admins']), 'Get', KEY).allowed);
});

t.test('a journal holding a version keeps it: the configuration does not seed it again', async (t) => {
  const journal = new MemoryJournal();
  const stored: PolicyDocument = { roleBindings: { ops: ['Sign', 'Administer'] }, subjectBindings: {} };
  await journal.policies.put({ document: stored, createdAt: '2026-01-01T00:00:00.000Z', createdBy: 'alice' }, 0);
  const logger = recordingLogger();
  const policy = live(journal.policies, SEED, 1000, logger);
  await policy.start();
  t.teardown(() => policy.stop());
  t.equal(await journal.policies.latestVersion(), 1, 'nothing written');
  t.ok(policy.authorize(human('bob', ['ops']), 'Sign', KEY).allowed, 'the stored bindings apply');
  t.notOk(policy.authorize(human('ann', ['admins']), 'Get', KEY).allowed, 'the configured ones do not');
  t.match(logger.lines.join('\n'), /warn policy: the configured bindings differ from the journal's/);
});

t.test('a version written through another node is applied within the refresh period', async (t) => {
  // Two journals over one SQLite file, as two worker processes of one node share it.
  const file = path.join(tempDir(), 'journal.db');
  const a = new KnexJournal(sqliteKnexSettings(file, undefined, true));
  await a.start();
  const b = new KnexJournal(sqliteKnexSettings(file, undefined, true));
  await b.start();
  const onA = live(a.policies);
  const onB = live(b.policies);
  await onA.start();
  await onB.start();
  t.teardown(async () => {
    await onA.stop();
    await onB.stop();
    await a.stop();
    await b.stop();
  });
  t.equal(onB.version.version, 1, 'the second node found the version the first seeded');
  const carol = human('carol');
  t.notOk(onB.authorize(carol, 'Sign', KEY).allowed);
  const next: PolicyDocument = { ...SEED, subjectBindings: { carol: ['Sign'] } };
  const written = await a.policies.put({ document: next, createdAt: new Date().toISOString(), createdBy: 'x' }, 1);
  t.ok(written);
  onA.apply({ document: next, createdAt: '', createdBy: 'x', version: 2 });
  t.ok(onA.authorize(carol, 'Sign', KEY).allowed, 'the writing node applies it at once');
  const started = Date.now();
  await until(() => onB.authorize(carol, 'Sign', KEY).allowed, 'node B applies version 2', 2000);
  t.comment(`node B applied the new version ${Date.now() - started} ms after it was stored (refresh 1000 ms)`);
  t.equal(onB.version.version, 2);
});

t.test('usesResourceFacts follows the applied bindings', async (t) => {
  const journal = new MemoryJournal();
  const policy = live(journal.policies);
  await policy.start();
  t.teardown(() => policy.stop());
  t.equal(policy.usesResourceFacts, false, 'plain lists need no key facts');
  const scoped: PolicyDocument = {
    ...SEED,
    subjectBindings: { dave: { operations: ['Sign'], keys: ['owner:self'] } },
  };
  policy.apply({ document: scoped, createdAt: '', createdBy: 'x', version: 2 });
  t.equal(policy.usesResourceFacts, true, 'a key-scoped binding needs them');
  t.ok(policy.authorize(human('dave'), 'Sign', KEY, { id: KEY, name: 'k', owner: 'dave' }).allowed);
  t.notOk(policy.authorize(human('dave'), 'Sign', KEY, { id: KEY, name: 'k', owner: 'erin' }).allowed);
  policy.apply({ document: SEED, createdAt: '', createdBy: 'x', version: 3 });
  t.equal(policy.usesResourceFacts, false, 'and stops needing them with the next version');
});

t.test('versions only move forward; one with bad bindings is not applied and says why', async (t) => {
  const journal = new MemoryJournal();
  const logger = recordingLogger();
  const policy = live(journal.policies, SEED, 1000, logger);
  await policy.start();
  t.teardown(() => policy.stop());
  const bad: PolicyDocument = { roleBindings: { admins: ['Fly'] }, subjectBindings: {} };
  t.equal(policy.apply({ document: bad, createdAt: '', createdBy: 'x', version: 2 }), false);
  t.equal(policy.version.version, 1, 'the applied version stays');
  t.match(logger.lines.join('\n'), /error policy: a stored version has bad bindings.*unknown operation \\"Fly\\"/);
  t.equal(policy.apply({ document: bad, createdAt: '', createdBy: 'x', version: 2 }), false);
  t.equal(logger.lines.filter((l) => l.startsWith('error')).length, 1, 'a refused version is logged once');
  const newer: PolicyDocument = { roleBindings: { admins: ['Sign', 'Administer'] }, subjectBindings: {} };
  policy.apply({ document: newer, createdAt: '', createdBy: 'x', version: 3 });
  t.equal(policy.apply({ document: SEED, createdAt: '', createdBy: 'x', version: 2 }), true);
  t.equal(policy.version.version, 3, 'an older version read late never replaces a newer one');
});

t.test(
  'a store that cannot be read leaves the applied version in force, logged once; stop ends the polling',
  async (t) => {
    const journal = new MemoryJournal();
    let reads = 0;
    let failing = false;
    const store: PolicyStore = {
      latest: () => journal.policies.latest(),
      history: (limit) => journal.policies.history(limit),
      put: (next, expected, audit) => journal.policies.put(next, expected, audit),
      latestVersion: async () => {
        reads++;
        if (failing) throw new Error('database unreachable');
        return journal.policies.latestVersion();
      },
    };
    const logger = recordingLogger();
    const policy = live(store, SEED, 50, logger);
    await policy.start();
    await until(() => reads >= 2, 'two refreshes');
    failing = true;
    const at = reads;
    await until(() => reads >= at + 3, 'three failed refreshes');
    t.equal(logger.lines.filter((l) => l.startsWith('warn policy: cannot read')).length, 1, 'one warning per streak');
    t.ok(policy.authorize(human('ann', ['admins']), 'Get', KEY).allowed, 'the applied version still decides');
    failing = false;
    await until(() => logger.lines.some((l) => l.startsWith('info policy: refresh works again')), 'recovery');
    await policy.stop();
    const stopped = reads;
    // A running twin with the same period measures the time in which the stopped one would have read four times.
    let twinReads = 0;
    const twin = live({ ...store, latestVersion: async () => ++twinReads }, SEED, 50);
    await twin.start();
    await until(() => twinReads >= 4, 'four refreshes of a running policy');
    await twin.stop();
    t.equal(reads, stopped, 'no read after stop');
  },
);

t.test('the audit summary of a change: added, changed, removed, bounded to one context value', async (t) => {
  const before: PolicyDocument = {
    roleBindings: { ops: ['Get'], old: ['Sign'], same: { keys: ['owner:self'], operations: ['Get'] } },
    subjectBindings: { alice: ['Get'] },
  };
  const after: PolicyDocument = {
    roleBindings: { ops: ['Get'], new: ['Get'], same: { operations: ['Get'], keys: ['owner:self'] } },
    subjectBindings: { alice: ['Get', 'Sign'] },
  };
  t.equal(policyDiff(before, after), '+roleBindings.new -roleBindings.old ~subjectBindings.alice');
  t.equal(policyDiff(after, after), 'no change');
  const many = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`group-${i}-${'g'.repeat(100)}`, ['Get']]));
  const summary = policyDiff(before, { roleBindings: many, subjectBindings: {} });
  t.ok(summary.length <= 1024, `at most one audit context value (${summary.length} characters)`);
  t.match(summary, /^\+roleBindings\.group-0-g+… .* \(\+\d+ more\)$/, 'long names cut, the rest counted');
});

t.test('ETags and If-Match', async (t) => {
  const v = { version: 7, document: SEED, createdAt: '2026-01-01T00:00:00.000Z', createdBy: 'alice' };
  const etag = policyEtag(v);
  t.match(etag, /^"7-[0-9a-f]{16}"$/);
  t.not(policyEtag({ ...v, createdAt: '2026-01-02T00:00:00.000Z' }), etag, 'another write of number 7 differs');
  t.ok(ifMatches(etag, etag));
  t.ok(ifMatches(`"other", ${etag}`, etag), 'one of a list');
  t.notOk(ifMatches(`W/${etag}`, etag), 'a weak tag never matches');
  t.notOk(ifMatches('*', etag), '* does not stand for the version read');
});

t.test('a version must leave someone able to change the policy', async (t) => {
  t.same(administrationProblems(SEED), []);
  t.same(administrationProblems({ roleBindings: {}, subjectBindings: { root: ['Administer'] } }), []);
  t.match(administrationProblems({ roleBindings: { ops: ['Get'] }, subjectBindings: {} }), [/Administer/]);
  t.match(
    administrationProblems({
      roleBindings: { ops: { operations: ['Administer'], keys: ['owner:self'] } },
      subjectBindings: {},
    }),
    [/nobody could change the policy again/],
    'a key-scoped grant does not reach the policy',
  );
});
