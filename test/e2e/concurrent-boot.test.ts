import path from 'node:path';
import t, { type Test } from 'tap';
import { ApiClient } from '../helpers/client.ts';
import { freshDatabase, type ServerKind } from '../helpers/databases.ts';
import { spawnService } from '../helpers/process.ts';
import { tempDir } from '../helpers/service.ts';

// It starts many server processes one after another: minutes on a 2-core machine that runs other tests too.
t.setTimeout(300_000);

const NODES = 4;
const ROUNDS = 3;
const LOOPBACK = { SVC_HTTP_HOST: '127.0.0.1', SVC_HTTP_PORT: '0' };

/** Starts NODES service processes at the same moment on one fresh database; every one must boot and serve. */
async function bootTogether(t: Test, env: Record<string, string>): Promise<void> {
  const nodes = Array.from({ length: NODES }, () => spawnService({ ...LOOPBACK, ...env }));
  t.teardown(() => {
    for (const n of nodes) n.child.kill('SIGKILL');
  });
  const ports = await Promise.all(nodes.map((n) => n.listening.catch((err: Error) => err)));
  const failed = ports.filter((p) => p instanceof Error) as Error[];
  for (const e of failed)
    t.comment(
      e.message
        .split('\n')
        .filter((l) => l.startsWith('svc-kms:'))
        .join(' '),
    );
  t.equal(failed.length, 0, `all ${NODES} nodes booted`);
  const keyIds = await Promise.all(
    ports
      .filter((p): p is number => typeof p === 'number')
      .map((port, i) =>
        new ApiClient(`http://127.0.0.1:${port}`, { 'X-Svc-User': `node-${i}` }).key({ algorithm: 'AES' }),
      ),
  );
  t.equal(new Set(keyIds).size, NODES, 'each node serves');
}

for (const kind of ['postgresql', 'mysql'] as ServerKind[]) {
  t.test(`${kind}: ${NODES} nodes started at once on a fresh database all boot (${ROUNDS} rounds)`, async (t) => {
    for (let round = 1; round <= ROUNDS; round++) {
      const db = await freshDatabase(t, kind);
      if (!db) return;
      await t.test(`round ${round}`, (t) => bootTogether(t, db.env));
    }
  });
}

t.test(`SQLite: ${NODES} processes started at once on a fresh file all boot (${ROUNDS} rounds)`, async (t) => {
  for (let round = 1; round <= ROUNDS; round++) {
    const dir = tempDir();
    await t.test(`round ${round}`, (t) =>
      bootTogether(t, {
        SVC_JOURNAL_KIND: 'rdb-embedded',
        SVC_AUDIT_KIND: 'rdb-embedded',
        SVC_RDB_EMBEDDED_JDBC_URL: path.join(dir, 'journal.db'),
        SVC_CRYPTO_LOCAL_KEK: Buffer.alloc(32, 4).toString('base64'),
      }),
    );
  }
});
