import knexFactory from 'knex';
import t from 'tap';
import { serverConnection } from '../../plugins/sql-support/connection-url.ts';
import { b64 } from '../helpers/client.ts';
import { freshDatabase, type ServerKind, type TestDatabase } from '../helpers/databases.ts';
import { startTestService } from '../helpers/service.ts';

const LONG_ID = 'a'.repeat(400);
const NUL_ID = encodeURIComponent('0000\u0000\u001b[31m');

/** The audit rows as the database holds them, read with the database's own client. */
async function auditRows(
  db: TestDatabase,
): Promise<Array<{ operation: string; resource: string; outcome: string; actor: string; context: string }>> {
  const c = serverConnection(db.url, db.kind, db.user, db.password);
  const knex = knexFactory({
    client: db.kind === 'postgresql' ? 'pg' : 'mysql2',
    connection: { host: c.host, port: c.port, database: c.database, user: c.user, password: c.password },
  });
  try {
    return await knex('svc_audit').select('operation', 'resource', 'outcome', 'actor', 'context');
  } finally {
    await knex.destroy();
  }
}

for (const kind of ['postgresql', 'mysql'] as ServerKind[]) {
  t.test(
    `${kind}: poisoned requests mixed into a concurrent load fail alone, and every acknowledged change has exactly one record`,
    async (t) => {
      const db = await freshDatabase(t, kind);
      if (!db) return;
      const svc = await startTestService(db.env);
      t.teardown(() => svc.stop());
      const api = svc.client('alice');
      const raw = (path: string, body?: unknown) => api.call('POST', path, body);

      const legit = Array.from({ length: 24 }, async (_, i) => {
        const created = await raw('/v1/keys', { spec: { name: `legit-${i} 🔑 ключ`, algorithm: 'AES' } });
        if (created.status !== 201) return { ok: false, step: 'create', res: created };
        const id = created.body.id as string;
        const activated = await raw(`/v1/keys/${id}/activate`);
        const enc = await raw(`/v1/keys/${id}/encrypt`, {
          plaintextBase64: b64(`secret ${i}`),
          context: { 'tenant\u0001': 'x'.repeat(5000) },
        });
        // A reason is caller-chosen text: control characters in it are refused (test/e2e/caller-text.test.ts); a
        // context value's are cleaned.
        const compromised = await raw(`/v1/keys/${id}/compromise`, { reason: `drill ${i} ${'r'.repeat(1000)}` });
        return {
          ok: activated.status === 200 && enc.status === 200 && compromised.status === 200,
          step: 'use',
          res: { activated: activated.status, enc: enc.body, compromised: compromised.body },
          id,
        };
      });
      const poison = Array.from({ length: 24 }, async (_, i) => {
        const answers = await Promise.all([
          api.get(`/v1/keys/${LONG_ID}${i}`),
          raw(`/v1/keys/${LONG_ID}/encrypt`, { plaintextBase64: b64('x') }),
          raw(`/v1/keys/${NUL_ID}/rotate`, {}),
          raw('/v1/keys', { spec: { name: `bad\u0000name-${i}`, algorithm: 'AES' } }),
          raw('/v1/keys', { spec: { name: 'n'.repeat(300 + i), algorithm: 'AES' } }),
          raw('/v1/keys', { spec: { name: '\u001b]0;owned\u0007', algorithm: 'AES' } }),
        ]);
        return answers.map((a) => `${a.status} ${a.body.error}`);
      });
      const [good, bad] = await Promise.all([Promise.all(legit), Promise.all(poison)]);

      t.same(
        good.filter((g) => !g.ok),
        [],
        'every legitimate request got its right answer',
      );
      for (const answers of bad) {
        // A NUL anywhere in input is refused as InvalidField before any lookup; other control characters are cleaned.
        t.same(answers, [
          '404 KeyNotFound',
          '404 KeyNotFound',
          '400 InvalidField',
          '400 InvalidField',
          '400 InvalidField',
          '400 InvalidField',
        ]);
      }

      const rows = await auditRows(db);
      for (const g of good) {
        const mine = rows.filter((r) => r.resource === g.id && r.outcome === 'Success');
        t.same(
          mine.map((r) => r.operation).sort(),
          ['Activate', 'Compromise', 'Create', 'Encrypt'],
          `key ${g.id}: one record per acknowledged call`,
        );
      }
      const invalid = rows.filter((r) => r.resource.startsWith('invalid:'));
      t.equal(invalid.length, 24 * 3, 'every call naming a bad id has its row');
      t.ok(
        invalid.every(
          (r) =>
            /^invalid:[0-9a-f]{16}$/.test(r.resource) &&
            (r.operation === 'Rotate' ? r.outcome === 'InvalidField' : r.outcome === 'KeyNotFound'),
        ),
      );
      const failedCreates = rows.filter((r) => r.operation === 'Create' && r.outcome === 'InvalidField');
      t.equal(failedCreates.length, 24 * 3, 'every refused create has its row');
      t.ok(
        failedCreates.every((r) => r.resource.length <= 300 && !/[\u0000-\u001f]/.test(r.resource)),
        'resources are bounded and hold no control characters',
      );
      t.ok(
        rows.every((r) =>
          Object.entries(JSON.parse(r.context) as Record<string, string>).every(
            ([k, v]) => !/[\u0000-\u001f]/.test(k + v),
          ),
        ),
        'context keys and values hold no control characters',
      );
      const compromise = rows.find((r) => r.operation === 'Compromise')!;
      t.ok(JSON.parse(compromise.context).reason.length <= 1024, 'context values are cut to 1024 characters');
    },
  );
}
