import t from 'tap';
import { forgedRow, insertRow, NODE, someCalls, unstarted, verify } from '../helpers/audit-chain-trail.ts';
import { seedAudit } from '../helpers/audit-seed.ts';
import { startTestService } from '../helpers/service.ts';

/**
 * Rows from before the chain and the start of each chain: an insider deletes a chain's oldest rows, edits
 * a row from before the chain, or adds an unchained row after the upgrade; retention's pruning and the
 * 0.2 trail's nodes are taken in as they are.
 */

for (const kind of ['sqlite', 'postgresql'] as const) {
  t.test(
    `${kind}: deleting a chain's oldest rows makes verification fail; the rows retention pruned do not`,
    async (t) => {
      const at = await unstarted(t, kind);
      if (!at) return;
      const { db, dir } = at;
      // 40 rows over the last 400 days: the oldest fall outside the default retention of 365 days.
      const seeder = at.sink();
      await seeder.start();
      await seedAudit(seeder, 40, new Date(), 400);
      await seeder.stop();
      const env = { SVC_JOURNAL_KIND: 'rdb-embedded', SVC_NODE_ID: NODE, ...(db?.env ?? {}) };
      let service = await startTestService(env, { dir });
      t.teardown(() => service.stop());
      const left = () => at.sql(`select event_id from svc_audit where node = '${NODE}' order by id`).trim().split('\n');
      t.ok(left().length < 40, `retention pruned the oldest rows at start (${40 - left().length} of them)`);
      t.match(await verify(service, '?full=true'), { valid: true }, 'what retention pruned is not a break');

      // Rows well inside the retention period: only someone deleting them explains their absence.
      const oldest = left().slice(0, 3);
      at.sql(`delete from svc_audit where event_id in (${oldest.map((id) => `'${id}'`).join(', ')})`);
      const reason = /its oldest rows were deleted/;
      t.match(await verify(service, '?full=true'), {
        valid: false,
        firstBroken: { id: left()[0], node: NODE, reason },
      });
      await service.stop();
      service = await startTestService(env, { dir });
      t.match(
        await verify(service, '?full=true'),
        { valid: false, firstBroken: { node: NODE, reason } },
        'a restart does not take the cut in',
      );
    },
  );

  t.test(
    `${kind}: a row from before the chain (no node) edited to tell of something after the upgrade makes verification fail`,
    async (t) => {
      const at = await unstarted(t, kind);
      if (!at) return;
      const { db, dir } = at;
      // A trail as 0.1 left it: rows without a node or a hash, then the upgraded node's chain.
      const old = at.sink();
      await old.start();
      const legacy = Array.from({ length: 3 }, () =>
        forgedRow({ node: null, operation: 'Get', occurred_at: new Date(Date.now() - 86_400_000).toISOString() }),
      );
      for (const row of legacy) at.sql(insertRow(row));
      await old.stop();
      const service = await startTestService(
        { SVC_JOURNAL_KIND: 'rdb-embedded', SVC_NODE_ID: NODE, ...(db?.env ?? {}) },
        { dir },
      );
      t.teardown(() => service.stop());
      await someCalls(service, 1);
      t.match(await verify(service, '?full=true'), { valid: true }, 'the older rows are accepted as they are');

      // The insider turns an old read into a destroy by alice, dated after the upgrade (here two hours on).
      const later = new Date(Date.now() + 2 * 3_600_000).toISOString();
      at.sql(
        `update svc_audit set operation = 'Destroy', actor = 'alice', occurred_at = '${later}' where event_id = '${legacy[1]!.event_id}'`,
      );
      t.ok(
        (await service.client('auditor').get('/v1/audit?op=Destroy')).body.records.some(
          (r: { id: string }) => r.id === legacy[1]!.event_id,
        ),
        'it shows in GET /v1/audit',
      );
      t.match(await verify(service, '?full=true'), {
        valid: false,
        firstBroken: { id: legacy[1]!.event_id, reason: /dated after the hash chain began/ },
      });
    },
  );

  t.test(
    `${kind}: upgrading from 0.2: the nodes already on the trail are adopted once, older unchained rows stay accepted, new ones do not`,
    async (t) => {
      const at = await unstarted(t, kind);
      if (!at) return;
      const { db, dir } = at;
      // A trail as 0.2 left it: rows from before the chain (0.1: no node, no hash), then two nodes' chains, written
      // without a registry.
      for (const node of ['kms-a', 'kms-b']) {
        const old = at.sink(node);
        await old.start();
        if (node === 'kms-a')
          for (let i = 0; i < 3; i++) at.sql(insertRow(forgedRow({ node: null, operation: 'Get' })));
        await seedAudit(old, 20, new Date());
        await old.stop();
      }
      const env = { SVC_JOURNAL_KIND: 'rdb-embedded', SVC_NODE_ID: NODE, ...(db?.env ?? {}) };
      let service = await startTestService(env, { dir });
      t.teardown(() => service.stop());
      await someCalls(service, 1);
      t.match(
        await verify(service),
        { valid: true, nodes: ['kms-1', 'kms-a', 'kms-b'] },
        'the upgraded trail verifies',
      );
      const registered = at.sql('select node, origin from svc_nodes order by node', 'journal').trim().split('\n');
      t.same(registered, ['kms-1|boot', 'kms-a|upgrade', 'kms-b|upgrade']);

      // After the upgrade a row without a node is not taken in, not even by the next start.
      const stray = forgedRow({ node: null });
      at.sql(insertRow(stray));
      await service.stop();
      service = await startTestService(env, { dir });
      t.match(await verify(service), { valid: false, firstBroken: { id: stray.event_id, reason: /no node/ } });
      t.same(
        at.sql("select count(*) from svc_node_adoption where name = 'audit'", 'journal').trim(),
        '1',
        'adopted once',
      );
    },
  );
}
