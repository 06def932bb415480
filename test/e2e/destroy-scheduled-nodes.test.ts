import path from 'node:path';
import { fileURLToPath } from 'node:url';
import knexFactory from 'knex';
import t from 'tap';
import { ApiClient, b64 } from '../helpers/client.ts';
import { freshDatabase } from '../helpers/databases.ts';
import { spawnService, type ServiceProcess } from '../helpers/process.ts';
import { until } from '../helpers/until.ts';

const CLOCK_AHEAD = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/clock-ahead.mjs');
const DAY = 86_400_000;

/** A service process on the database; `aheadMs` moves its wall clock forward (the days a destruction waits). */
async function node(
  env: Record<string, string>,
  aheadMs = 0,
): Promise<{ api: ApiClient; proc: ServiceProcess; stop: () => Promise<void> }> {
  const proc = spawnService({
    SVC_HTTP_HOST: '127.0.0.1',
    SVC_HTTP_PORT: '0',
    SVC_KEYS_DESTROY_CHECK_SECONDS: '1',
    ...env,
    ...(aheadMs ? { NODE_OPTIONS: `--import ${CLOCK_AHEAD}`, TEST_CLOCK_AHEAD_MS: String(aheadMs) } : {}),
  });
  const port = await proc.listening;
  return {
    api: new ApiClient(`http://127.0.0.1:${port}`, { 'X-Svc-User': 'ops' }),
    proc,
    stop: async () => {
      proc.child.kill('SIGTERM');
      await proc.exited;
    },
  };
}

t.test(
  'PostgreSQL: destructions that fell due while the service was down are ' +
    'carried out after the restart, exactly once by two nodes',
  async (t) => {
    const db = await freshDatabase(t, 'postgresql');
    if (!db) return;
    const first = await node(db.env);
    const due: string[] = [];
    for (let i = 0; i < 5; i++) {
      const id = await first.api.key({ algorithm: 'AES' });
      await first.api.post(`/v1/keys/${id}/revoke`, {});
      t.equal((await first.api.call('DELETE', `/v1/keys/${id}?waitingDays=1`)).status, 202);
      due.push(id);
    }
    const later = await first.api.key({ algorithm: 'AES' });
    await first.api.post(`/v1/keys/${later}/revoke`, {});
    await first.api.call('DELETE', `/v1/keys/${later}?waitingDays=3`);
    await first.stop();

    // A day and a minute later, two nodes start on the same database.
    const [a, b] = await Promise.all([node(db.env, DAY + 60_000), node(db.env, DAY + 60_000)]);
    t.teardown(() => Promise.all([a.stop(), b.stop()]));
    for (const id of due)
      await until(
        async () => (await a.api.get(`/v1/keys/${id}`)).body.state === 'Destroyed',
        `key ${id} destroyed`,
        30_000,
      );
    t.equal((await b.api.get(`/v1/keys/${later}`)).body.state, 'Deactivated', 'a key due later is kept');
    t.match((await b.api.get(`/v1/keys/${later}`)).body, { destroyAt: /^\d{4}-/ });
    t.comment(
      `carried out by a: ${(a.proc.stderr().match(/carried out a scheduled/g) ?? []).length}, b: ${(b.proc.stderr().match(/carried out a scheduled/g) ?? []).length}; superseded/conflict lines: ${(a.proc.stderr() + b.proc.stderr()).match(/scheduled destruction failed/g)?.length ?? 0}`,
    );
    const u = new URL(db.url.replace(/^jdbc:postgresql:/, 'db:'));
    const knex = knexFactory({
      client: 'pg',
      connection: {
        host: u.hostname,
        port: Number(u.port),
        database: u.pathname.slice(1),
        user: db.user,
        password: db.password,
      },
    });
    t.teardown(() => knex.destroy());
    // The erase follows each destruction in the background; with two nodes an attempt can find the other's
    // table rebuild and retry later.
    await until(
      async () => (await knex('svc_erasure_tasks').whereIn('key_id', due).pluck('key_id')).length === 0,
      'every destroyed key erased',
      60_000,
    );
    // Stopped, neither node writes anything more: what the database holds now is the whole story.
    await Promise.all([a.stop(), b.stop()]);
    for (const id of due) {
      const destroyed = await knex('svc_key_events').where({ key_id: id, type: 'Destroyed' }).select('payload');
      t.equal(destroyed.length, 1, `key ${id}: one Destroyed event`);
      t.equal(JSON.parse(destroyed[0].payload).by, 'svc-system');
      const records = await knex('svc_audit')
        .where({ resource: id, actor: 'svc-system' })
        .select('operation', 'outcome', 'context');
      // The background erase reports its own outcomes (context erasure: pending or complete; with two nodes
      // one attempt may find the other's rebuild holding the table): those are not the destruction.
      const contextOf = (r: any): Record<string, string> =>
        typeof r.context === 'string' ? JSON.parse(r.context) : (r.context ?? {});
      const destructions = records.filter((r: any) => contextOf(r).erasure === undefined);
      t.same(
        destructions.map((r: any) => [r.operation, r.outcome]),
        [['Destroy', 'Success']],
        `key ${id}: one svc-system audit record of the destruction, a success`,
      );
      t.ok(
        records.every((r: any) => r.operation === 'Destroy'),
        `key ${id}: the others report its erase`,
      );
      t.match(contextOf(destructions[0]), { door: 'internal', 'destroy.trigger': 'scheduled' });
    }
    t.same(await knex('svc_destroy_schedule').pluck('key_id'), [later], 'only the later key is still scheduled');
    t.same(
      await knex('svc_erasure_tasks').whereIn('key_id', due).pluck('key_id'),
      [],
      'and every destroyed key is erased',
    );
  },
);

t.test('PostgreSQL: trims and rotations racing on two nodes leave every kept version usable on both', async (t) => {
  const db = await freshDatabase(t, 'postgresql');
  if (!db) return;
  const [a, b] = await Promise.all([node(db.env), node(db.env)]);
  t.teardown(() => Promise.all([a.stop(), b.stop()]));
  const id = await a.api.key({ algorithm: 'AES' });
  for (let i = 0; i < 4; i++) await b.api.post(`/v1/keys/${id}/rotate`, {});
  t.equal(
    (await a.api.post(`/v1/keys/${id}/encrypt`, { plaintextBase64: b64('warm') })).body.keyVersion,
    5,
    'node A holds the KWK in memory',
  );
  // Node B rotates and encrypts under each new version while node A trims: a rotation that lost its
  // race to a trim must not keep material sealed under the KWK the trim replaced.
  const made: Array<{ keyVersion: number; ciphertextBase64: string }> = [];
  const rotateAndEncrypt = async () => {
    for (let i = 0; i < 10; i++) {
      t.equal((await b.api.post(`/v1/keys/${id}/rotate`, {})).status, 200);
      const enc = await b.api.post(`/v1/keys/${id}/encrypt`, { plaintextBase64: b64(`round ${i}`) });
      t.equal(enc.status, 200);
      made.push(enc.body);
    }
  };
  const [, trims] = await Promise.all([
    rotateAndEncrypt(),
    Promise.all([3, 5].map((minVersion) => a.api.post(`/v1/keys/${id}/trim`, { minVersion }))),
  ]);
  for (const trim of trims)
    t.ok(
      trim.status === 200 || (trim.status === 409 && /trimmed already/.test(trim.body.message)),
      `trim answers ${trim.status}`,
    );
  const key = (await a.api.get(`/v1/keys/${id}`)).body;
  t.match(key, { currentVersion: 15, minVersion: 5 });
  for (const { keyVersion, ciphertextBase64 } of made) {
    for (const [name, n] of [
      ['A', a],
      ['B', b],
    ] as const) {
      const dec = await n.api.post(`/v1/keys/${id}/decrypt`, { ciphertextBase64 });
      if (keyVersion >= 5) t.equal(dec.status, 200, `version ${keyVersion} decrypts on node ${name}`);
      else
        t.match(
          dec.body,
          { error: 'IllegalOperation', message: /was trimmed/ },
          `version ${keyVersion} is trimmed on node ${name}`,
        );
    }
  }
});
