import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { natsServer } from '../helpers/nats-server.ts';
import { startTestService } from '../helpers/service.ts';
import { until } from '../helpers/until.ts';

const retrying = {
  SVC_AUDIT_MSGSTREAM_INITIAL_BACKOFF_MS: '20',
  SVC_AUDIT_MSGSTREAM_MAX_BACKOFF_MS: '200',
  SVC_AUDIT_MSGSTREAM_MAX_RETRIES: '1000',
};

t.test(
  'message-stream: stream missing, then created; server down, then up: every event stored once, in order',
  async (t) => {
    const nats = await natsServer(t);
    if (!nats) return;
    const svc = await startTestService({
      SVC_AUDIT_MSGSTREAM_ENABLED: 'true',
      SVC_AUDIT_MSGSTREAM_SERVERS: nats.url,
      ...retrying,
    });
    t.teardown(() => svc.stop());
    const api = svc.client();
    for (let i = 0; i < 3; i++)
      t.equal(
        (await api.post('/v1/keys', { spec: { name: `m${i}`, algorithm: 'AES' } })).status,
        201,
        'requests do not wait on the stream',
      );
    await until(
      async () => /SVC_AUDIT missing/.test((await api.get('/readyz')).body.checks['sink:message-stream']?.detail ?? ''),
      'readyz to name the missing stream',
    );
    await nats.createStream('SVC_AUDIT', 'svc.audit');
    await until(async () => (await nats.messages('SVC_AUDIT')).length >= 3, 'the held-back events');

    await nats.stop();
    for (let i = 3; i < 6; i++) await api.post('/v1/keys', { spec: { name: `m${i}`, algorithm: 'AES' } });
    await nats.start();

    const primary = (await api.get('/v1/audit?limit=1000')).body.records.reverse().map((r: { id: string }) => r.id);
    let stored: Array<{ msgId: string; value: { id: string } }> = [];
    await until(
      async () => (stored = await nats.messages('SVC_AUDIT')).length >= primary.length,
      'every event in the stream',
      30_000,
    );
    t.same(
      stored.slice(0, primary.length).map((m) => m.value.id),
      primary,
      "in the primary's order, none twice",
    );
    t.ok(
      stored.every((m) => m.msgId === m.value.id),
      'Nats-Msg-Id is the event id',
    );
    const deadLetter = path.join(svc.dir, 'audit-message-stream.deadletter.jsonl');
    t.notOk(existsSync(deadLetter) && readFileSync(deadLetter, 'utf8').trim(), 'nothing dead-lettered');
  },
);

t.test(
  'audit.sinks: several sinks from the config file, one of them misconfigured, fail the boot by name',
  async (t) => {
    const { writeFileSync } = await import('node:fs');
    const { tempDir } = await import('../helpers/service.ts');
    const dir = tempDir();
    const file = path.join(dir, 'svc.yaml');
    writeFileSync(
      file,
      'audit:\n  sinks:\n    - {kind: webhook, name: siem, url: ' +
        '"https://siem.example/in", secret: s3cr3t}\n    - {kind: ' +
        'message-stream, name: bus, servers: "http://nats:4222"}\n',
    );
    await t.rejects(
      startTestService({}, { argv: ['--config', file] }),
      /audit\.sinks\[1\] \(message-stream sink\): server "http:\/\/nats:4222" is not a nats:\/\/ or tls:\/\/ URL/,
    );
    await t.rejects(
      startTestService({ SVC_AUDIT_MSGSTREAM_ENABLED: 'true' }),
      /audit \(env SVC_AUDIT_MSGSTREAM_\*\) \(message-stream sink\): servers is required/,
      'the env sink is named by its variables',
    );
    writeFileSync(file, 'audit:\n  sinks:\n    - {kind: carrier-pigeon, name: p}\n');
    await t.rejects(
      startTestService({}, { argv: ['--config', file] }),
      /audit\.sinks\[0\] has kind "carrier-pigeon", which this build has no sink for; available: webhook, log-stream, message-stream/,
    );
    writeFileSync(
      file,
      'audit:\n  sinks:\n    - {kind: webhook, name: siem, url: "https://a.example", secret: x, retries: 3}\n',
    );
    await t.rejects(
      startTestService({}, { argv: ['--config', file] }),
      /audit\.sinks\[0\] \(webhook sink\): retries is not a setting of this kind/,
    );
  },
);

t.test('audit.sinks: two webhooks of one kind, each with its own readiness check and delivery', async (t) => {
  const { webhookReceiver } = await import('../helpers/webhook-receiver.ts');
  const { writeFileSync } = await import('node:fs');
  const { tempDir } = await import('../helpers/service.ts');
  const [a, b] = [await webhookReceiver(), await webhookReceiver()];
  t.teardown(() => Promise.all([a.close(), b.close()]));
  const dir = tempDir();
  const file = path.join(dir, 'svc.yaml');
  writeFileSync(
    file,
    `audit:\n  sinks:\n    - {kind: webhook, name: siem-a, url: "${a.url}", secret: one-secret}\n    - {kind: webhook, name: siem-b, url: "${b.url}", secret: two-secret, initialBackoffMs: 10}\n`,
  );
  const svc = await startTestService({}, { argv: ['--config', file] });
  t.teardown(() => svc.stop());
  await b.down();
  await svc.client().post('/v1/keys', { spec: { name: 'fan', algorithm: 'AES' } });
  await until(() => a.accepted().length === 1, 'siem-a to receive');
  await until(
    async () => (await svc.client().get('/readyz')).body.checks['sink:siem-b']?.ok === false,
    'siem-b to read unready',
  );
  t.equal((await svc.client().get('/readyz')).body.checks['sink:siem-a'].ok, true);
  await b.up();
  await until(() => b.accepted().length >= 1, 'siem-b to catch up');
  t.equal(b.accepted()[0].id, a.accepted()[0].id, 'the same event at both');
  const printed = svc.logs.join('\n');
  t.notMatch(printed, /one-secret|two-secret/, 'secrets from audit.sinks never printed');
  const { resolveConfiguration } = await import('../../app/start.ts');
  const redacted = (await resolveConfiguration(['--config', file], {})).config.redacted();
  t.notMatch(redacted, /one-secret|two-secret/, '--print-config hides them');
  t.match(redacted, /siem-b/);
});
