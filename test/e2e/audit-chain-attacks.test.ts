import { randomUUID } from 'node:crypto';
import path from 'node:path';
import t, { type Test } from 'tap';
import { serverConnection } from '../../config/urls.ts';
import { chainHash, GENESIS_HASH } from '../../kernel/audit/canonical-event.ts';
import { createStderrLogger } from '../../kernel/logger.ts';
import { systemClock } from '../../kernel/ports/clock.ts';
import { KnexAuditSink } from '../../plugins/audit-sink/knex/knex-audit-sink.ts';
import { serverKnexSettings } from '../../plugins/sql-support/server-connection.ts';
import { sqliteKnexSettings } from '../../plugins/sql-support/sqlite-connection.ts';
import { seedAudit } from '../helpers/audit-seed.ts';
import { freshDatabase, type TestDatabase } from '../helpers/databases.ts';
import { insiderSql } from '../helpers/insider-sql.ts';
import { startTestService, tempDir, type TestService } from '../helpers/service.ts';
import { until } from '../helpers/until.ts';

/**
 * An insider with write access to the audit database (not to the journal) tries to make the trail say
 * what did not happen, and verification must say `valid: false` with the reason: a row inserted without
 * a hash or a node, a self-consistent chain under a node id no node ever started as, the newest rows of
 * a chain cut off after its node recorded its head in the journal. Each was `valid: true` in 0.2.0.
 */
const NODE = 'kms-1';
const KINDS = ['sqlite', 'postgresql', 'mysql'] as const;
type Kind = (typeof KINDS)[number];

interface Trail {
  service: TestService;
  db: TestDatabase | undefined;
  dir: string;
  sql(sql: string, store?: 'audit' | 'journal'): string;
  restart(): Promise<TestService>;
}

/** A service whose journal keeps its node registry on disk (or in the server database), over a folder that survives a restart. */
async function trail(t: Test, kind: Kind, env: Record<string, string> = {}): Promise<Trail | undefined> {
  const db = kind === 'sqlite' ? undefined : await freshDatabase(t, kind);
  if (kind !== 'sqlite' && !db) return undefined;
  const dir = tempDir('svc-chain-attacks-');
  const fullEnv = { SVC_JOURNAL_KIND: 'rdb-embedded', SVC_NODE_ID: NODE, SVC_RATE_LIMIT_ENABLED: 'false', ...(db?.env ?? {}), ...env };
  const self: Trail = {
    service: await startTestService(fullEnv, { dir }),
    db,
    dir,
    sql: (sql, store) => insiderSql(dir, db, sql, store),
    restart: async () => {
      await self.service.stop();
      self.service = await startTestService(fullEnv, { dir });
      return self.service;
    },
  };
  t.teardown(() => self.service.stop());
  return self;
}

async function someCalls(service: TestService, encrypts: number): Promise<void> {
  const api = service.client();
  const key = await api.key({ algorithm: 'AES' });
  for (let i = 0; i < encrypts; i++) {
    const res = await api.post(`/v1/keys/${key}/encrypt`, { plaintextBase64: 'aGk=' });
    if (res.status !== 200) throw new Error(`encrypt answered ${res.status}: ${JSON.stringify(res.body)}`);
  }
}

const verify = async (service: TestService, query = '') => (await service.client('auditor').get(`/v1/audit/verify${query}`)).body;
const quote = (value: string | null) => (value === null ? 'null' : `'${value.replaceAll("'", "''")}'`);

/** An INSERT of one audit row with exactly these columns, as an insider writes it. */
function insertRow(row: Record<string, string | null>): string {
  return `insert into svc_audit (${Object.keys(row).join(', ')}) values (${Object.values(row).map(quote).join(', ')})`;
}

const forgedRow = (over: Record<string, string | null>) => ({
  event_id: randomUUID(), occurred_at: new Date().toISOString(), actor: 'alice', actor_kind: 'Human', operation: 'Destroy',
  resource: randomUUID(), outcome: 'Success', context: '{}', correlation_id: 'forged', ...over,
});

for (const kind of KINDS) {
  t.test(`${kind}: a row inserted without a hash, or without a node, makes verification fail`, async (t) => {
    const at = await trail(t, kind);
    if (!at) return;
    await someCalls(at.service, 2);
    t.match(await verify(at.service), { valid: true });

    const noHash = forgedRow({ node: NODE });
    at.sql(insertRow(noHash));
    const listed = (await at.service.client('auditor').get('/v1/audit?op=Destroy')).body.records;
    t.ok(listed.some((r: { id: string }) => r.id === noHash.event_id), 'the forged row shows in GET /v1/audit');
    t.match(await verify(at.service), { valid: false, firstBroken: { id: noHash.event_id, node: NODE, reason: /no hash/ } });

    at.sql(`delete from svc_audit where event_id = '${noHash.event_id}'`);
    const noNode = forgedRow({ node: null });
    at.sql(insertRow(noNode));
    t.match(await verify(at.service), { valid: false, firstBroken: { id: noNode.event_id, reason: /no node/ } });
    t.match(await verify(at.service, '?full=true'), { valid: false, firstBroken: { id: noNode.event_id, reason: /no node/ } }, 'a full verification too');
  });

  t.test(`${kind}: a self-consistent chain under a node id no node ever started as makes verification fail`, async (t) => {
    const at = await trail(t, kind);
    if (!at) return;
    await someCalls(at.service, 1);
    // Chained exactly as a node would chain them, with the service's own hash function: every link holds.
    let prevHash = GENESIS_HASH;
    const ghost = Array.from({ length: 3 }, (_, i) => {
      const row = forgedRow({ node: 'kms-ghost', occurred_at: new Date(Date.now() + i).toISOString() });
      const hash = chainHash({
        schemaVersion: 1, id: row.event_id, occurredAt: row.occurred_at, node: 'kms-ghost', principal: { subject: row.actor, kind: 'Human' },
        operation: row.operation, resource: row.resource, outcome: row.outcome, context: {}, correlationId: row.correlation_id, prevHash,
      });
      const stored = { ...row, prev_hash: prevHash, hash };
      prevHash = hash;
      return stored;
    });
    for (const row of ghost) at.sql(insertRow(row));
    t.match(await verify(at.service), { valid: false, firstBroken: { id: ghost[0]!.event_id, node: 'kms-ghost', reason: /not in the journal's node registry/ } });
    t.match(await verify(at.service, `?node=${NODE}`), { valid: true }, 'the real node\'s chain is intact');
    const registered = at.sql('select node from svc_nodes', 'journal').trim().split('\n');
    t.same(registered, [NODE], 'the journal knows only the node that started');
  });

  t.test(`${kind}: cutting the newest rows off a chain whose node recorded its head at stop makes verification fail`, async (t) => {
    const at = await trail(t, kind);
    if (!at) return;
    await someCalls(at.service, 3);
    await at.service.stop();
    const [rowId, count] = at.sql(`select head_row_id, head_count from svc_nodes where node = '${NODE}'`, 'journal').trim().split('|').map(Number);
    t.ok(rowId! > 0 && count! >= 5, `the node recorded its head at stop (row ${rowId}, ${count} rows)`);
    // While the node is down, its two newest rows go: what is left is a valid, shorter chain.
    at.sql(`delete from svc_audit where node = '${NODE}' and id >= ${rowId! - 1}`);
    const service = await at.restart();
    t.ok(service.logs.some((l) => /no longer holds the head it recorded/.test(l)), 'the node says so at start');
    const report = await verify(service, '?full=true');
    t.match(report, { valid: false, firstBroken: { node: NODE, reason: new RegExp(`before the head node ${NODE} recorded at row ${rowId}.*newest rows were removed`) } });
    await someCalls(service, 1);
    t.match(await verify(service, '?full=true'), { valid: false, firstBroken: { reason: /newest rows were removed/ } }, 'new rows written after the start do not hide it');
  });

  t.test(`${kind}: rows chained onto a stopped node's chain (its hash function is public) make verification fail, also once the node runs again`, async (t) => {
    const at = await trail(t, kind);
    if (!at) return;
    await someCalls(at.service, 2);
    await at.restart();
    await someCalls(at.service, 1);
    t.match(await verify(at.service, '?full=true'), { valid: true }, 'a clean stop and start leaves a valid chain');
    await at.service.stop();
    t.equal(at.sql(`select head_closed from svc_nodes where node = '${NODE}'`, 'journal').trim().replace(/^t$/, '1'), '1', 'the node closed its head at stop');

    // While the node is down, an insider appends a row that links to its newest row, exactly as the node would.
    const [prevHash] = at.sql(`select hash from svc_audit where node = '${NODE}' order by id desc limit 1`).trim().split('|');
    const row = forgedRow({ node: NODE });
    const hash = chainHash({
      schemaVersion: 1, id: row.event_id, occurredAt: row.occurred_at, node: NODE, principal: { subject: row.actor, kind: 'Human' },
      operation: row.operation, resource: row.resource, outcome: row.outcome, context: {}, correlationId: row.correlation_id, prevHash: prevHash!,
    });
    at.sql(insertRow({ ...row, prev_hash: prevHash!, hash }));
    const service = await at.restart();
    t.ok(service.logs.some((l) => /rows were added to the audit chain of this node while it was stopped/.test(l)), 'the node says so at start');
    const reason = new RegExp(`after node ${NODE} stopped`);
    t.match(await verify(service, '?full=true'), { valid: false, firstBroken: { id: row.event_id, node: NODE, reason } });
    await someCalls(service, 1);
    await service.stop();
    const again = await at.restart();
    t.match(await verify(again, '?full=true'), { valid: false, firstBroken: { id: row.event_id, reason } }, 'rows written since, and another restart, do not hide it');
  });

  t.test(`${kind}: verification goes on from the last verified row; full=true checks every row again`, async (t) => {
    const at = await trail(t, kind);
    if (!at) return;
    await someCalls(at.service, 3);
    const rows = () => Number(at.sql(`select count(*) from svc_audit where node = '${NODE}'`).trim());
    const total = rows();
    t.match(await verify(at.service), { valid: true, checked: total });
    t.match(await verify(at.service), { valid: true, checked: 1 }, 'only the one row written since: the first verification\'s own record');
    const all = rows();
    t.match(await verify(at.service, '?full=true'), { valid: true, checked: all }, 'full=true checks every row');

    // The row the last verification ended on (the newest but one: the newest is that verification's own record) must still be as it was.
    const ended = at.sql(`select event_id from svc_audit where node = '${NODE}' order by id desc limit 1 offset 1`).trim();
    at.sql(`update svc_audit set outcome = 'PermissionDenied' where event_id = '${ended}'`);
    t.match(await verify(at.service), { valid: false, firstBroken: { id: ended, reason: /the last one verified before, was changed since/ } });
    t.match(await verify(at.service, '?full=true'), { valid: false, firstBroken: { id: ended, reason: /edited/ } });
  });
}

for (const kind of ['sqlite', 'postgresql'] as const) {
  t.test(`${kind}: a running node records its head every 1000 records, so cutting its newest rows is seen without a restart`, async (t) => {
    const at = await trail(t, kind);
    if (!at) return;
    const api = at.service.client();
    const key = await api.key({ algorithm: 'AES' });
    for (let i = 0; i < 1000; i += 50) {
      const answers = await Promise.all(Array.from({ length: 50 }, () => api.post(`/v1/keys/${key}/encrypt`, { plaintextBase64: 'aGk=' })));
      t.same([...new Set(answers.map((a) => a.status))], [200]);
    }
    let rowId = 0;
    await until(() => (rowId = Number(at.sql(`select head_row_id from svc_nodes where node = '${NODE}'`, 'journal').trim())) > 0, 'the node to record its head');
    at.sql(`delete from svc_audit where node = '${NODE}' and id >= ${rowId - 10}`);
    t.match(await verify(at.service, '?full=true'), { valid: false, firstBroken: { node: NODE, reason: new RegExp(`recorded at row ${rowId}.*newest rows were removed`) } });
  });

  t.test(`${kind}: a second verification while one runs is 429 TooManyRequests with Retry-After`, async (t) => {
    const db = kind === 'sqlite' ? undefined : await freshDatabase(t, kind);
    if (kind !== 'sqlite' && !db) return;
    const dir = tempDir('svc-chain-attacks-');
    const settings = db
      ? serverKnexSettings('postgresql', serverConnection(db.url, 'postgresql', db.user, db.password), { max: 4, acquireTimeoutMs: 5000, bootTimeoutMs: 20000 })
      : sqliteKnexSettings(path.join(dir, 'audit.db'));
    // A chain long enough that the first verification is still reading when the second arrives.
    const seeder = new KnexAuditSink(settings, 0, systemClock, createStderrLogger('error', () => {}), NODE);
    await seeder.start();
    await seedAudit(seeder, 20_000, new Date());
    await seeder.stop();
    const service = await startTestService({ SVC_NODE_ID: NODE, ...(db?.env ?? {}) }, { dir });
    t.teardown(() => service.stop());
    const api = service.client('auditor');
    const both = await Promise.all([api.get('/v1/audit/verify?full=true'), api.get('/v1/audit/verify?full=true')]);
    t.same(both.map((r) => r.status).sort(), [200, 429], 'one verification ran, the other was refused');
    const refused = both.find((r) => r.status === 429)!;
    t.match(refused.body, { error: 'TooManyRequests', message: /audit verification is already running on this node/ });
    t.ok(Number(refused.headers.get('retry-after')) >= 1, `Retry-After: ${refused.headers.get('retry-after')}`);
    t.match(both.find((r) => r.status === 200)!.body, { valid: true });
    t.equal((await api.get('/v1/audit/verify')).status, 200, 'once it is done, a verification runs again');
  });
}

for (const kind of ['sqlite', 'postgresql'] as const) {
  t.test(`${kind}: deleting a chain's oldest rows makes verification fail; the rows retention pruned do not`, async (t) => {
    const db = kind === 'sqlite' ? undefined : await freshDatabase(t, kind);
    if (kind !== 'sqlite' && !db) return;
    const dir = tempDir('svc-chain-attacks-');
    const settings = db
      ? serverKnexSettings('postgresql', serverConnection(db.url, 'postgresql', db.user, db.password), { max: 4, acquireTimeoutMs: 5000, bootTimeoutMs: 20000 })
      : sqliteKnexSettings(path.join(dir, 'audit.db'));
    // 40 rows over the last 400 days: the oldest fall outside the default retention of 365 days.
    const seeder = new KnexAuditSink(settings, 0, systemClock, createStderrLogger('error', () => {}), NODE);
    await seeder.start();
    await seedAudit(seeder, 40, new Date(), 400);
    await seeder.stop();
    const env = { SVC_JOURNAL_KIND: 'rdb-embedded', SVC_NODE_ID: NODE, ...(db?.env ?? {}) };
    let service = await startTestService(env, { dir });
    t.teardown(() => service.stop());
    const left = () => insiderSql(dir, db, `select event_id from svc_audit where node = '${NODE}' order by id`).trim().split('\n');
    t.ok(left().length < 40, `retention pruned the oldest rows at start (${40 - left().length} of them)`);
    t.match(await verify(service, '?full=true'), { valid: true }, 'what retention pruned is not a break');

    // Rows well inside the retention period: only someone deleting them explains their absence.
    const oldest = left().slice(0, 3);
    insiderSql(dir, db, `delete from svc_audit where event_id in (${oldest.map((id) => `'${id}'`).join(', ')})`);
    const reason = /its oldest rows were deleted/;
    t.match(await verify(service, '?full=true'), { valid: false, firstBroken: { id: left()[0], node: NODE, reason } });
    await service.stop();
    service = await startTestService(env, { dir });
    t.match(await verify(service, '?full=true'), { valid: false, firstBroken: { node: NODE, reason } }, 'a restart does not take the cut in');
  });
}

for (const kind of ['sqlite', 'postgresql'] as const) {
  t.test(`${kind}: a row from before the chain (no node) edited to tell of something after the upgrade makes verification fail`, async (t) => {
    const db = kind === 'sqlite' ? undefined : await freshDatabase(t, kind);
    if (kind !== 'sqlite' && !db) return;
    const dir = tempDir('svc-chain-attacks-');
    const settings = db
      ? serverKnexSettings('postgresql', serverConnection(db.url, 'postgresql', db.user, db.password), { max: 4, acquireTimeoutMs: 5000, bootTimeoutMs: 20000 })
      : sqliteKnexSettings(path.join(dir, 'audit.db'));
    // A trail as 0.1 left it: rows without a node or a hash, then the upgraded node's chain.
    const old = new KnexAuditSink(settings, 0, systemClock, createStderrLogger('error', () => {}), NODE);
    await old.start();
    const legacy = Array.from({ length: 3 }, () => forgedRow({ node: null, operation: 'Get', occurred_at: new Date(Date.now() - 86_400_000).toISOString() }));
    for (const row of legacy) insiderSql(dir, db, insertRow(row));
    await old.stop();
    const service = await startTestService({ SVC_JOURNAL_KIND: 'rdb-embedded', SVC_NODE_ID: NODE, ...(db?.env ?? {}) }, { dir });
    t.teardown(() => service.stop());
    await someCalls(service, 1);
    t.match(await verify(service, '?full=true'), { valid: true }, 'the older rows are accepted as they are');

    // The insider turns an old read into a destroy by alice, dated after the upgrade (here two hours on).
    const later = new Date(Date.now() + 2 * 3_600_000).toISOString();
    insiderSql(dir, db, `update svc_audit set operation = 'Destroy', actor = 'alice', occurred_at = '${later}' where event_id = '${legacy[1]!.event_id}'`);
    t.ok((await service.client('auditor').get('/v1/audit?op=Destroy')).body.records.some((r: { id: string }) => r.id === legacy[1]!.event_id), 'it shows in GET /v1/audit');
    t.match(await verify(service, '?full=true'), { valid: false, firstBroken: { id: legacy[1]!.event_id, reason: /dated after the hash chain began/ } });
  });
}

for (const kind of ['sqlite', 'postgresql'] as const) {
  t.test(`${kind}: upgrading from 0.2: the nodes already on the trail are adopted once, older unchained rows stay accepted, new ones do not`, async (t) => {
    const db = kind === 'sqlite' ? undefined : await freshDatabase(t, kind);
    if (kind !== 'sqlite' && !db) return;
    const dir = tempDir('svc-chain-attacks-');
    const settings = db
      ? serverKnexSettings('postgresql', serverConnection(db.url, 'postgresql', db.user, db.password), { max: 4, acquireTimeoutMs: 5000, bootTimeoutMs: 20000 })
      : sqliteKnexSettings(path.join(dir, 'audit.db'));
    // A trail as 0.2 left it: rows from before the chain (0.1: no node, no hash), then two nodes' chains, written without a registry.
    for (const node of ['kms-a', 'kms-b']) {
      const old = new KnexAuditSink(settings, 0, systemClock, createStderrLogger('error', () => {}), node);
      await old.start();
      if (node === 'kms-a') for (let i = 0; i < 3; i++) insiderSql(dir, db, insertRow(forgedRow({ node: null, operation: 'Get' })));
      await seedAudit(old, 20, new Date());
      await old.stop();
    }
    const env = { SVC_JOURNAL_KIND: 'rdb-embedded', SVC_NODE_ID: NODE, ...(db?.env ?? {}) };
    let service = await startTestService(env, { dir });
    t.teardown(() => service.stop());
    await someCalls(service, 1);
    t.match(await verify(service), { valid: true, nodes: ['kms-1', 'kms-a', 'kms-b'] }, 'the upgraded trail verifies');
    const registered = insiderSql(dir, db, 'select node, origin from svc_nodes order by node', 'journal').trim().split('\n');
    t.same(registered, ['kms-1|boot', 'kms-a|upgrade', 'kms-b|upgrade']);

    // After the upgrade a row without a node is not taken in, not even by the next start.
    const stray = forgedRow({ node: null });
    insiderSql(dir, db, insertRow(stray));
    await service.stop();
    service = await startTestService(env, { dir });
    t.match(await verify(service), { valid: false, firstBroken: { id: stray.event_id, reason: /no node/ } });
    t.same(insiderSql(dir, db, "select count(*) from svc_node_adoption where name = 'audit'", 'journal').trim(), '1', 'adopted once');
  });
}
