import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { ApiClient } from '../helpers/client.ts';
import { spawnService } from '../helpers/process.ts';
import { tempDir } from '../helpers/service.ts';

t.test('the data directory is 0700 and every file the service writes in it 0600', async (t) => {
  const data = path.join(tempDir(), 'data');
  const svc = spawnService({ SVC_HTTP_HOST: '127.0.0.1', SVC_HTTP_PORT: '0', SVC_JOURNAL_KIND: 'rdb-embedded', SVC_AUDIT_KIND: 'rdb-embedded', SVC_RDB_EMBEDDED_JDBC_URL: `jdbc:sqlite:${path.join(data, 'journal.db')}` });
  t.teardown(() => svc.child.kill('SIGKILL'));
  const api = new ApiClient(`http://127.0.0.1:${await svc.listening}`, { 'X-Svc-User': 'ops' });
  await api.key({ algorithm: 'AES' });
  t.equal(statSync(data).mode & 0o777, 0o700, 'data/ is 0700');
  const files = readdirSync(data);
  t.ok(['journal.db', 'journal.db-wal', 'audit.db', 'kek.key'].every((f) => files.includes(f)), `files: ${files.join(', ')}`);
  for (const f of files) t.equal(statSync(path.join(data, f)).mode & 0o777, 0o600, `${f} is 0600`);
});

t.test('--print-config hides passwords, also inside URLs', async (t) => {
  const svc = spawnService({ SVC_JDBC_URL: 'postgres://svc:hunter2-in-url@db.internal:5432/svc', SVC_JDBC_PASSWORD: 'hunter3-setting', SVC_RDB2_JDBC_URL: 'jdbc:mysql://db:3306/svc?user=svc&password=hunter4-query' }, ['--print-config']);
  t.equal(await svc.exited, 0);
  const out = svc.stdout();
  t.notMatch(out, /hunter2|hunter3|hunter4/);
  t.match(JSON.parse(out), { jdbc: { url: 'postgres://svc:***@db.internal:5432/svc' }, rdb2: { jdbcUrl: 'jdbc:mysql://db:3306/svc?user=svc&password=***' } });
});
