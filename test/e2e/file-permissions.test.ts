import {
  chmodSync,
  existsSync,
  lstatSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { ApiClient } from '../helpers/client.ts';
import { spawnService } from '../helpers/process.ts';
import { tempDir } from '../helpers/service.ts';
import { until } from '../helpers/until.ts';
import { webhookReceiver } from '../helpers/webhook-receiver.ts';

t.test('the data directory is 0700 and every file the service writes in it 0600', async (t) => {
  const data = path.join(tempDir(), 'data');
  const svc = spawnService({
    SVC_HTTP_HOST: '127.0.0.1',
    SVC_HTTP_PORT: '0',
    SVC_JOURNAL_KIND: 'rdb-embedded',
    SVC_AUDIT_KIND: 'rdb-embedded',
    SVC_RDB_EMBEDDED_JDBC_URL: `jdbc:sqlite:${path.join(data, 'journal.db')}`,
  });
  t.teardown(() => svc.child.kill('SIGKILL'));
  const api = new ApiClient(`http://127.0.0.1:${await svc.listening}`, { 'X-Svc-User': 'ops' });
  await api.key({ algorithm: 'AES' });
  t.equal(statSync(data).mode & 0o777, 0o700, 'data/ is 0700');
  const files = readdirSync(data);
  t.ok(
    ['journal.db', 'journal.db-wal', 'audit.db', 'kek.key'].every((f) => files.includes(f)),
    `files: ${files.join(', ')}`,
  );
  for (const f of files) t.equal(statSync(path.join(data, f)).mode & 0o777, 0o600, `${f} is 0600`);
});

t.test(
  'files restored open to others (kek.key 0644, journal.db 0666) are ' +
    'narrowed to 0600 at boot, with a warning naming each',
  async (t) => {
    const data = path.join(tempDir(), 'data');
    const env = {
      SVC_HTTP_HOST: '127.0.0.1',
      SVC_HTTP_PORT: '0',
      SVC_JOURNAL_KIND: 'rdb-embedded',
      SVC_AUDIT_KIND: 'rdb-embedded',
      SVC_RDB_EMBEDDED_JDBC_URL: `jdbc:sqlite:${path.join(data, 'journal.db')}`,
      SVC_DATA_DIR: data,
    };
    const first = spawnService(env);
    const api = new ApiClient(`http://127.0.0.1:${await first.listening}`, { 'X-Svc-User': 'ops' });
    const keyId = await api.key({ algorithm: 'AES' });
    first.child.kill('SIGTERM');
    await first.exited;
    const opened = { 'kek.key': 0o644, 'journal.db': 0o666, 'audit.db': 0o640 } as const;
    for (const [f, mode] of Object.entries(opened)) chmodSync(path.join(data, f), mode);
    chmodSync(data, 0o755);

    const second = spawnService(env);
    t.teardown(() => second.child.kill('SIGKILL'));
    const again = new ApiClient(`http://127.0.0.1:${await second.listening}`, { 'X-Svc-User': 'ops' });
    for (const [f, mode] of Object.entries(opened)) {
      t.equal(statSync(path.join(data, f)).mode & 0o777, 0o600, `${f} is 0600 again`);
      t.match(
        second.stderr(),
        new RegExp(
          `"msg":"[^"]*was mode 0${mode.toString(8)}, open to other users; narrowed to 0600[^"]*".*"file":"${path.join(data, f)}"`,
        ),
        `the log names ${f} and its old mode`,
      );
    }
    t.match(
      second.stderr(),
      /KEK file was mode 0644, open to other users; narrowed to 0600; whoever could read it may hold the KEK: rotate it/,
      'and says what a KEK others could read calls for',
    );
    t.match(
      second.stderr(),
      new RegExp(
        `the folder of the service's files is mode 0755, open to other users; make it 0700 \\(chmod 700\\)","folder":"${data}"`,
      ),
      'an open data folder is named, not changed',
    );
    t.equal(statSync(data).mode & 0o777, 0o755);
    t.equal((await again.get(`/v1/keys/${keyId}`)).status, 200, 'the service serves as before');
  },
);

t.test(
  'a dead-letter file others could write (pre-created 0666) is moved aside unread: its lines are never replayed signed',
  async (t) => {
    const rx = await webhookReceiver();
    t.teardown(() => rx.close());
    const dir = tempDir();
    const file = path.join(dir, 'audit-webhook.deadletter.jsonl');
    const forged = {
      schemaVersion: 1,
      id: 'forged-1',
      occurredAt: '2026-01-01T00:00:00.000Z',
      node: 'node-a',
      principal: { subject: 'mallory', kind: 'Human' },
      operation: 'Destroy',
      resource: 'key:ceo',
      outcome: 'Success',
      context: {},
      correlationId: 'x',
    };
    writeFileSync(
      file,
      `${JSON.stringify({ event: forged, sink: 'webhook', error: 'webhook answered 500', attempts: 6, failedAt: '2026-01-01T00:00:01.000Z' })}\n`,
    );
    chmodSync(file, 0o666);
    const env = {
      SVC_JOURNAL_KIND: 'rdb-embedded',
      SVC_AUDIT_KIND: 'rdb-embedded',
      SVC_RDB_EMBEDDED_JDBC_URL: `jdbc:sqlite:${path.join(dir, 'journal.db')}`,
      SVC_DATA_DIR: dir,
      SVC_AUDIT_WEBHOOK_ENABLED: 'true',
      SVC_AUDIT_WEBHOOK_URL: rx.url,
      SVC_AUDIT_WEBHOOK_SECRET: 'webhook-secret-of-the-receiver-0123456789',
    };
    const replay = spawnService(env, ['replay-dead-letters']);
    t.equal(await replay.exited, 1, 'the replay does not report success');
    t.same(
      rx.accepted().map((e) => e.id),
      [],
      'the forged line was not delivered',
    );
    const aside = readdirSync(dir).filter((f) => f.startsWith('audit-webhook.deadletter.jsonl.untrusted-'));
    t.equal(aside.length, 1, 'the file is moved aside');
    t.notOk(existsSync(file), 'nothing is left under the name a replay reads');
    t.equal(statSync(path.join(dir, aside[0]!)).mode & 0o777, 0o600, 'and narrowed to 0600');
    t.match(readFileSync(path.join(dir, aside[0]!), 'utf8'), /forged-1/, 'kept unchanged for the operator to inspect');
    t.match(
      replay.stderr(),
      /audit dead-letter file could be written by other users \(mode 0666\)/,
      'the log says why',
    );
    t.match(
      replay.stdout(),
      new RegExp(`webhook: 0 replayed.*not replayed, writable by other users: ${path.join(dir, aside[0]!)}`),
      'the summary names it',
    );
  },
);

t.test('a dead-letter path that is a symbolic link is moved aside at boot: appends never follow it', async (t) => {
  const dir = tempDir();
  const target = path.join(tempDir(), 'elsewhere.txt');
  writeFileSync(target, "not the service's\n");
  const file = path.join(dir, 'audit-webhook.deadletter.jsonl');
  symlinkSync(target, file);
  const env = {
    SVC_HTTP_HOST: '127.0.0.1',
    SVC_HTTP_PORT: '0',
    SVC_DATA_DIR: dir,
    SVC_AUDIT_WEBHOOK_ENABLED: 'true',
    SVC_AUDIT_WEBHOOK_URL: 'http://127.0.0.1:9/never',
    SVC_AUDIT_WEBHOOK_SECRET: 'webhook-secret-of-the-receiver-0123456789',
    SVC_AUDIT_WEBHOOK_MAX_RETRIES: '0',
  };
  const svc = spawnService(env);
  t.teardown(() => svc.child.kill('SIGKILL'));
  const api = new ApiClient(`http://127.0.0.1:${await svc.listening}`, { 'X-Svc-User': 'ops' });
  await api.key({ algorithm: 'AES' });
  t.match(
    svc.stderr(),
    /audit dead-letter file is a symbolic link, so its lines may not be the service's: moved aside/,
  );
  t.ok(
    readdirSync(dir).some((f) => f.startsWith('audit-webhook.deadletter.jsonl.untrusted-')),
    'the link is moved aside',
  );
  await until(
    () =>
      existsSync(file) && !lstatSync(file).isSymbolicLink() && readFileSync(file, 'utf8').includes('"sink":"webhook"'),
    "the undeliverable events to land in a dead-letter file of the service's own",
  );
  t.equal(statSync(file).mode & 0o777, 0o600);
  t.equal(readFileSync(target, 'utf8'), "not the service's\n", 'the file it pointed to is untouched');
});

t.test('--print-config hides passwords, also inside URLs', async (t) => {
  const svc = spawnService(
    {
      SVC_JDBC_URL: 'postgres://svc:hunter2-in-url@db.internal:5432/svc',
      SVC_JDBC_PASSWORD: 'hunter3-setting',
      SVC_RDB2_JDBC_URL: 'jdbc:mysql://db:3306/svc?user=svc&password=hunter4-query',
    },
    ['--print-config'],
  );
  t.equal(await svc.exited, 0);
  const out = svc.stdout();
  t.notMatch(out, /hunter2|hunter3|hunter4/);
  t.match(JSON.parse(out), {
    jdbc: { url: 'postgres://svc:***@db.internal:5432/svc' },
    rdb2: { jdbcUrl: 'jdbc:mysql://db:3306/svc?user=svc&password=***' },
  });
});

t.test(
  '--print-config hides the password of every URL in a list and every credential in query parameters',
  async (t) => {
    const file = path.join(tempDir(), 'svc.yaml');
    writeFileSync(
      file,
      [
        'audit:',
        '  sinks:',
        '    - {kind: webhook, name: siem-a, url: "https://siem-a.example/in?source=svc&access_token=leak-a1"}',
        '    - {kind: webhook, name: siem-b, url: ' +
          '"https://ops:leak-b1@siem-b.example/in?X-Amz-Signature=leak-b2&apikey=leak-b3"}',
        '',
      ].join('\n'),
    );
    const svc = spawnService(
      {
        SVC_AUDIT_MSGSTREAM_SERVERS:
          'nats://first:leak-n1@nats-1.example:4222,nats://second:leak-n2@nats-2.example:4222,tls://third:leak-n3@nats-3.example:4222',
        SVC_AUDIT_WEBHOOK_URL: 'https://siem.example/ingest?token=leak-w1&source=svc',
        SVC_ADVISOR_LLM_BASE_URL: 'https://llm.example/v1?key=leak-l1',
        SVC_JDBC_URL: 'jdbc:postgresql://db.internal:5432/svc?user=svc&password=leak-p1&sslpassword=leak-p2',
      },
      ['--config', file, '--print-config'],
    );
    t.equal(await svc.exited, 0, svc.stderr());
    const out = svc.stdout();
    t.notMatch(out, /leak-/, 'no password or token is printed');
    const printed = JSON.parse(out);
    t.equal(
      printed.audit.msgStream.servers,
      'nats://first:***@nats-1.example:4222,nats://second:***@nats-2.example:4222,tls://third:***@nats-3.example:4222',
      'every URL of the list keeps its user and host, not its password',
    );
    t.equal(
      printed.audit.webhook.url,
      'https://siem.example/ingest?token=***&source=svc',
      'a harmless parameter stays readable',
    );
    t.match(printed.audit.sinks, [
      { url: 'https://siem-a.example/in?source=svc&access_token=***' },
      { url: 'https://ops:***@siem-b.example/in?X-Amz-Signature=***&apikey=***' },
    ]);
  },
);
