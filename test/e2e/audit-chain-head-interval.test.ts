import t from 'tap';
import { NODE, trail, verify } from '../helpers/audit-chain-trail.ts';
import { until } from '../helpers/until.ts';

/**
 * An insider with write access to the audit database cuts the newest rows off a running node's chain:
 * the node records its head in the journal every 1000 records, so the cut is seen without a restart.
 */

for (const kind of ['sqlite', 'postgresql'] as const) {
  t.test(
    `${kind}: a running node records its head every 1000 records, so cutting its newest rows is seen without a restart`,
    async (t) => {
      const at = await trail(t, kind);
      if (!at) return;
      const api = at.service.client();
      const key = await api.key({ algorithm: 'AES' });
      for (let i = 0; i < 1000; i += 50) {
        const answers = await Promise.all(
          Array.from({ length: 50 }, () => api.post(`/v1/keys/${key}/encrypt`, { plaintextBase64: 'aGk=' })),
        );
        t.same([...new Set(answers.map((a) => a.status))], [200]);
      }
      let rowId = 0;
      await until(
        () =>
          (rowId = Number(at.sql(`select head_row_id from svc_nodes where node = '${NODE}'`, 'journal').trim())) > 0,
        'the node to record its head',
      );
      at.sql(`delete from svc_audit where node = '${NODE}' and id >= ${rowId - 10}`);
      t.match(await verify(at.service, '?full=true'), {
        valid: false,
        firstBroken: { node: NODE, reason: new RegExp(`recorded at row ${rowId}.*newest rows were removed`) },
      });
    },
  );
}
