import { createServer } from 'node:net';
import t from 'tap';
import { ApiClient } from '../helpers/client.ts';
import { spawnService } from '../helpers/process.ts';

const LOOPBACK = { SVC_HTTP_HOST: '127.0.0.1', SVC_HTTP_PORT: '0' };

t.test(
  'an unknown journal kind fails the boot naming SVC_JOURNAL_KIND; every bad value is reported at once',
  async (t) => {
    const svc = spawnService({
      ...LOOPBACK,
      SVC_JOURNAL_KIND: 'bogus',
      SVC_HTTP_PORT: 'eighty',
      SVC_AUDIT_RETENTION_DAYS: '-1',
    });
    t.not(await svc.exited, 0);
    t.match(
      svc.stderr(),
      /journal\.kind: must be one of the possible values: \["in-memory","rdb-server-1","rdb-server-2","rdb-embedded"\]: value was "bogus" \(env SVC_JOURNAL_KIND\)/,
    );
    t.match(svc.stderr(), /http\.port:.*\(env SVC_HTTP_PORT\)/);
    t.match(svc.stderr(), /audit\.retentionDays:.*\(env SVC_AUDIT_RETENTION_DAYS\)/);
  },
);

t.test(
  'enforce on an exposed bind refuses to boot, lists the five dev-grade findings and never opens the port',
  async (t) => {
    // Hold the port: if the service tried to listen it would fail with EADDRINUSE instead of the preflight refusal.
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '0.0.0.0', resolve));
    const port = (blocker.address() as { port: number }).port;
    const svc = spawnService({
      SVC_HTTP_HOST: '0.0.0.0',
      SVC_HTTP_PORT: String(port),
      SVC_SECURITY_PREFLIGHT: 'enforce',
    });
    const code = await svc.exited;
    blocker.close();
    t.equal(code, 1);
    const err = svc.stderr();
    t.match(err, /refusing to boot, 5 finding\(s\)/);
    for (const finding of ['http.tls', 'auth.kind', 'policy.kind', 'crypto.kind', 'journal.kind'])
      t.match(err, new RegExp(`\\[FAIL\\] ${finding.replace('.', '\\.')}: `), finding);
    t.notMatch(err, /EADDRINUSE|listening/);
  },
);

t.test('warn on an exposed bind prints one banner with each finding and its risk, then boots', async (t) => {
  const svc = spawnService({ SVC_HTTP_HOST: '0.0.0.0', SVC_HTTP_PORT: '0' });
  await svc.listening;
  t.match(svc.stderr(), /preflight \(warn\): 5 finding\(s\)/);
  t.match(svc.stderr(), /\[WARN\] auth\.kind: .*\n\s+risk\/advice: /);
  svc.child.kill('SIGTERM');
  t.equal(await svc.exited, 0);
});

t.test('loopback with enforce boots, prints the plugin tree, and SIGTERM (twice) exits 0', async (t) => {
  const svc = spawnService({ ...LOOPBACK, SVC_SECURITY_PREFLIGHT: 'enforce' });
  const port = await svc.listening;
  t.match(svc.stderr(), /plugins wired\n\s+journal\s+journal-memory \(in-memory\)/);
  t.equal((await new ApiClient(`http://127.0.0.1:${port}`).get('/healthz')).status, 200);
  svc.child.kill('SIGTERM');
  svc.child.kill('SIGTERM');
  t.equal(await svc.exited, 0);
  t.match(svc.stderr(), /"msg":"shutting down","signal":"SIGTERM"/);
});

t.test('stdout carries only audit lines; logs go to stderr; the audit query is 501', async (t) => {
  const svc = spawnService(LOOPBACK);
  const api = new ApiClient(`http://127.0.0.1:${await svc.listening}`, { 'X-Svc-User': 'carol' });
  const key = await api.post('/v1/keys', { spec: { name: 'stdout', algorithm: 'AES' } });
  await api.post(`/v1/keys/${key.body.id}/activate`);
  const audit = await api.get('/v1/audit');
  t.equal(audit.status, 501);
  t.equal(audit.body.error, 'FeatureNotSupported');
  svc.child.kill('SIGINT');
  t.equal(await svc.exited, 0);
  const lines = svc
    .stdout()
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  t.match(lines[0], { actor: 'carol', actorKind: 'Human', op: 'KeyCreated', keyId: key.body.id, outcome: 'Success' });
  t.match(lines[1], { op: 'KeyActivated', outcome: 'Success' });
  t.match(lines[2], { op: 'Query', outcome: 'FeatureNotSupported' });
  t.equal(lines.length, 3);
  t.notMatch(svc.stdout(), /"level"/);
});

t.test('--print-config prints the effective config with secrets redacted', async (t) => {
  const secret = 'this-hmac-secret-must-never-be-printed-0123456789';
  const svc = spawnService({ ...LOOPBACK, SVC_AUTH_HMAC_SECRET: secret, SVC_JDBC_PASSWORD: 'pg-password-xyz' }, [
    '--print-config',
  ]);
  t.equal(await svc.exited, 0);
  const printed = JSON.parse(svc.stdout());
  t.equal(printed.http.host, '127.0.0.1');
  t.equal(printed.auth.hmacSecret, '[Sensitive]');
  t.notMatch(svc.stdout(), new RegExp(`${secret}|pg-password-xyz`));
});

t.test('a server journal without SVC_CRYPTO_LOCAL_KEK fails the boot saying why, before connecting', async (t) => {
  const svc = spawnService({
    ...LOOPBACK,
    SVC_JOURNAL_KIND: 'rdb-server-1',
    SVC_JDBC_URL: 'jdbc:postgresql://127.0.0.1:1/svc',
  });
  t.not(await svc.exited, 0);
  t.match(
    svc.stderr(),
    /\[FAIL\] crypto\.localKek: journal\.kind rdb-server-1 keeps keys across restarts, but no SVC_CRYPTO_LOCAL_KEK is set: keys would be unreadable after a restart/,
  );
  t.notMatch(svc.stderr(), /cannot use PostgreSQL/, 'preflight refuses before any connection');
});
