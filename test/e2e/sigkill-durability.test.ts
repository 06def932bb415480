import path from 'node:path';
import t, { type Test } from 'tap';
import { ApiClient, b64 } from '../helpers/client.ts';
import { freshDatabase } from '../helpers/databases.ts';
import { spawnService } from '../helpers/process.ts';
import { tempDir } from '../helpers/service.ts';

const LOOPBACK = { SVC_HTTP_HOST: '127.0.0.1', SVC_HTTP_PORT: '0' };

/** Creates, activates and rotates keys from 8 workers until stopped; returns what the service acknowledged. */
function loadUntil(api: ApiClient, stop: Promise<void>) {
  const acked = new Map<string, number>();
  let stopped = false;
  void stop.then(() => (stopped = true));
  const worker = async () => {
    while (!stopped) {
      try {
        // Unnamed: each key is named by its id (names are unique).
        const created = await api.post('/v1/keys', { spec: { algorithm: 'AES' } });
        if (created.status !== 201) continue;
        acked.set(created.body.id, 1);
        if ((await api.post(`/v1/keys/${created.body.id}/activate`)).status !== 200) continue;
        for (let i = 0; i < 3 && !stopped; i++) {
          const r = await api.post(`/v1/keys/${created.body.id}/rotate`, {});
          if (r.status === 200) acked.set(created.body.id, r.body.currentVersion);
        }
      } catch {
        return; // the connection died with the process
      }
    }
  };
  return { acked, done: Promise.all(Array.from({ length: 8 }, worker)) };
}

async function killAndCheck(t: Test, env: Record<string, string>) {
  const first = spawnService({ ...LOOPBACK, ...env });
  const api = new ApiClient(`http://127.0.0.1:${await first.listening}`, { 'X-Svc-User': 'ops' });
  let kill: () => void = () => {};
  const killed = new Promise<void>((resolve) => (kill = resolve));
  const load = loadUntil(api, killed);
  while (load.acked.size < 30) await new Promise((r) => setTimeout(r, 20));
  first.child.kill('SIGKILL'); // mid-flight: requests are still being answered
  kill();
  await load.done;
  await first.exited;
  t.ok(load.acked.size >= 30, `${load.acked.size} keys acknowledged before the kill`);

  const second = spawnService({ ...LOOPBACK, ...env });
  t.teardown(() => second.child.kill('SIGTERM'));
  const again = new ApiClient(`http://127.0.0.1:${await second.listening}`, { 'X-Svc-User': 'ops' });
  const missing: string[] = [];
  for (const [id, version] of load.acked) {
    const got = await again.get(`/v1/keys/${id}`);
    if (got.status !== 200 || got.body.currentVersion < version)
      missing.push(`${id}@${version}: ${got.status} ${got.body.currentVersion}`);
    else if (got.body.state === 'Active') {
      const enc = await again.post(`/v1/keys/${id}/encrypt`, { plaintextBase64: b64('still here') });
      if (enc.status !== 200) missing.push(`${id}: encrypt ${enc.status}`);
    }
  }
  t.same(missing, [], 'every acknowledged key and version survived SIGKILL and is usable');
}

t.test('SQLite: every acknowledged write survives SIGKILL', async (t) => {
  const dir = tempDir();
  await killAndCheck(t, {
    SVC_JOURNAL_KIND: 'rdb-embedded',
    SVC_AUDIT_KIND: 'rdb-embedded',
    SVC_RDB_EMBEDDED_JDBC_URL: `jdbc:sqlite:${path.join(dir, 'journal.db')}`,
  });
});

t.test('PostgreSQL: every acknowledged write survives SIGKILL', async (t) => {
  const db = await freshDatabase(t, 'postgresql');
  if (!db) return;
  await killAndCheck(t, db.env);
});
