import { execFileSync } from 'node:child_process';
import path from 'node:path';
import t from 'tap';
import { spawnService } from '../helpers/process.ts';
import { tempDir } from '../helpers/service.ts';

const LOOPBACK = { SVC_HTTP_HOST: '127.0.0.1', SVC_HTTP_PORT: '0' };
const childrenOf = (pid: number): string[] => {
  try {
    return execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean);
  } catch {
    return []; // pgrep exits 1 when it finds none
  }
};

t.test('more than one worker with settings one process holds: the boot is refused, naming each setting', async (t) => {
  // the defaults: in-memory journal, stdout audit, in-memory revocation
  const svc = spawnService({ ...LOOPBACK, SVC_WORKERS: '2' });
  t.equal(await svc.exited, 1);
  const err = svc.stderr();
  t.match(err, /configuration cannot run 2 workers/);
  t.match(err, /journal\.kind \(env SVC_JOURNAL_KIND\) is "in-memory"/);
  t.match(err, /audit\.kind \(env SVC_AUDIT_KIND\) is "stdout"/);
  t.match(err, /revocation\.kind \(env SVC_REVOCATION_KIND\) is "in-memory"/);
  t.notMatch(err, /"msg":"worker listening"/, 'no worker was started');
});

t.test('a shared journal but a revocation list in one process: refused, naming revocation.kind alone', async (t) => {
  const dir = tempDir();
  const svc = spawnService({
    ...LOOPBACK,
    SVC_WORKERS: '3',
    SVC_JOURNAL_KIND: 'rdb-embedded',
    SVC_AUDIT_KIND: 'rdb-embedded',
    SVC_RDB_EMBEDDED_JDBC_URL: `jdbc:sqlite:${path.join(dir, 'journal.db')}`,
    SVC_DATA_DIR: dir,
    SVC_REVOCATION_KIND: 'in-memory',
  });
  t.equal(await svc.exited, 1);
  t.match(svc.stderr(), /configuration cannot run 3 workers/);
  t.match(svc.stderr(), /revocation\.kind \(env SVC_REVOCATION_KIND\) is "in-memory".*use kv-store \(shared\) or none/);
  t.notMatch(svc.stderr(), /journal\.kind \(env/);
});

t.test('server.workers that is neither a count nor auto is a configuration error naming it', async (t) => {
  for (const bad of ['0', 'two', '-3', '1.5']) {
    const svc = spawnService({ ...LOOPBACK, SVC_WORKERS: bad });
    t.equal(await svc.exited, 1, bad);
    t.match(svc.stderr(), /server\.workers: must be a whole number of at least 1, or auto.*\(env SVC_WORKERS\)/, bad);
  }
});

t.test(
  'one worker (the default) is the process itself: no cluster, no child process, in-memory settings allowed',
  async (t) => {
    const svc = spawnService({ ...LOOPBACK, SVC_WORKERS: '1' });
    await svc.listening;
    t.same(childrenOf(svc.child.pid!), [], 'nothing forked');
    t.notMatch(svc.stderr(), /"worker":/);
    svc.child.kill('SIGTERM');
    t.equal(await svc.exited, 0);
  },
);
