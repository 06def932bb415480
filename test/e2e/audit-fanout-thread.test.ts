import { createHmac } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';
import { kafkaBroker } from '../helpers/kafka-broker.ts';
import { natsServer } from '../helpers/nats-server.ts';
import { startTestService, tempDir, type TestService } from '../helpers/service.ts';
import { until } from '../helpers/until.ts';
import { webhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SECRET = 'webhook-secret-of-the-receiver-0123456789';

const deadLetters = (file: string): Array<{ event: { id: string }; sink: string; error: string }> =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];

async function threaded(
  t: Test,
  extra: Record<string, string> = {},
  argv: string[] = [],
): Promise<{ svc: TestService; rx: WebhookReceiver }> {
  const rx = await webhookReceiver();
  t.teardown(() => rx.close());
  const svc = await startTestService(
    {
      SVC_AUDIT_FANOUT_THREAD: 'true',
      SVC_AUDIT_WEBHOOK_ENABLED: 'true',
      SVC_AUDIT_WEBHOOK_URL: rx.url,
      SVC_AUDIT_WEBHOOK_SECRET: SECRET,
      SVC_AUDIT_WEBHOOK_CONCURRENCY: '1',
      SVC_AUDIT_WEBHOOK_INITIAL_BACKOFF_MS: '10',
      SVC_AUDIT_WEBHOOK_MAX_BACKOFF_MS: '40',
      SVC_NODE_ID: 'node-a',
      ...extra,
    },
    { argv },
  );
  t.teardown(() => svc.stop());
  return { svc, rx };
}

async function primaryIds(svc: TestService): Promise<string[]> {
  const page = await svc.client().get('/v1/audit?limit=1000');
  return page.body.records.map((r: { id: string }) => r.id).reverse();
}

const metric = (text: string, name: string, labels: string): number => {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(labels));
  return line ? Number(line.split(' ').pop()) : 0;
};

t.test(
  'with the fan-out thread, every event reaches the webhook once, in ' +
    'order, signed over the bytes the request loop wrote',
  async (t) => {
    const { svc, rx } = await threaded(t);
    const api = svc.client();
    const id = await api.key({ algorithm: 'AES' });
    for (let i = 0; i < 20; i++) await api.post(`/v1/keys/${id}/encrypt`, { plaintextBase64: 'aGVsbG8=' });
    const ids = await primaryIds(svc);
    await until(() => rx.accepted().length >= ids.length, 'all events at the receiver');
    t.same(
      rx
        .accepted()
        .map((e) => e.id)
        .slice(0, ids.length),
      ids,
      "the primary sink's events, in order (concurrency 1)",
    );
    for (const post of rx.posts)
      t.equal(
        post.headers['x-svc-signature'],
        `sha256=${createHmac('sha256', SECRET).update(post.body).digest('hex')}`,
      );
    t.notOk(
      rx.posts.some((p) => p.body.includes('aGVsbG8=')),
      'no plaintext leaves with the audit',
    );

    const ready = await api.get('/readyz');
    t.equal(ready.status, 200);
    t.match(ready.body.checks['sink:webhook'], { ok: true }, "the thread's queue health is on /readyz");
    await until(
      async () =>
        metric((await api.get('/metrics')).body as string, 'svc_audit_sink_events_total', 'result="delivered"') >=
        ids.length,
      "the thread's counts in /metrics",
    );
    t.ok(
      svc.logs.every((l) => !l.includes(SECRET)),
      'the secret is never logged',
    );
  },
);

t.test(
  'log stream and message stream run in the thread too: each event once on the topic and in the stream',
  async (t) => {
    const broker = await kafkaBroker(t, ['svc-audit:4']);
    const nats = await natsServer(t);
    if (!broker || !nats) return;
    await nats.createStream('SVC_AUDIT', 'svc.audit');
    const { svc, rx } = await threaded(t, {
      SVC_AUDIT_WEBHOOK_CONCURRENCY: '64',
      SVC_AUDIT_LOGSTREAM_ENABLED: 'true',
      SVC_AUDIT_LOGSTREAM_BOOTSTRAP_SERVERS: broker.bootstrap,
      SVC_AUDIT_MSGSTREAM_ENABLED: 'true',
      SVC_AUDIT_MSGSTREAM_SERVERS: nats.url,
    });
    const api = svc.client();
    const id = await api.key({ algorithm: 'AES' });
    await Promise.all(
      Array.from({ length: 200 }, () => api.post(`/v1/keys/${id}/encrypt`, { plaintextBase64: 'aGk=' })),
    );
    const ids = await primaryIds(svc);
    // The audit read's own Query event comes later and may be there too: each of `ids` there, and nothing twice.
    const once = (got: string[]) => new Set(got).size === got.length && ids.every((i) => got.includes(i));
    await until(
      async () => once((await broker.messages('svc-audit')).map((m) => m.value.id)),
      'each event once on the topic',
      30_000,
    );
    await until(
      async () => once((await nats.messages('SVC_AUDIT')).map((m) => m.value.id)),
      'each event once in the stream',
      30_000,
    );
    await until(() => once(rx.accepted().map((e) => e.id)), 'each event once at the webhook', 30_000);
    const checks = (await api.get('/readyz')).body.checks;
    for (const sink of ['webhook', 'log-stream', 'message-stream'])
      t.match(checks[`sink:${sink}`], { ok: true }, `sink:${sink} on /readyz`);
  },
);

t.test('a refused event is dead-lettered by the thread, counted, and replayed through it', async (t) => {
  const { svc, rx } = await threaded(t, { SVC_AUDIT_WEBHOOK_MAX_RETRIES: '0' });
  const api = svc.client();
  rx.answer(400);
  await api.post('/v1/keys', { spec: { name: 'refused', algorithm: 'AES' } });
  const file = path.join(svc.dir, 'audit-webhook.deadletter.jsonl');
  await until(() => deadLetters(file).length === 1, 'the refused event in the dead-letter file');
  t.match(deadLetters(file)[0], { sink: 'webhook', error: /400/ });
  const refusedId = deadLetters(file)[0]!.event.id;
  await until(
    async () =>
      metric((await api.get('/metrics')).body as string, 'svc_audit_sink_events_total', 'result="dead_lettered"') === 1,
    'counted as dead-lettered',
  );

  const [outcome] = await svc.kernel.audit.replayDeadLetters('webhook');
  t.match(outcome, { sink: 'webhook', replayed: 1, delivered: 1, deadLettered: 0 });
  t.equal(rx.accepted().filter((e) => e.id === refusedId).length, 1, 'the receiver took it once, on replay');
  await t.rejects(
    svc.kernel.audit.replayDeadLetters('nope'),
    /no secondary audit sink is named "nope"; configured: webhook/,
  );
});

t.test('stop delivers what was queued a moment before', async (t) => {
  const { svc, rx } = await threaded(t);
  const api = svc.client();
  const id = await api.key({ algorithm: 'AES' });
  await Promise.all(
    Array.from({ length: 50 }, () => api.post(`/v1/keys/${id}/encrypt`, { plaintextBase64: 'aGVsbG8=' })),
  );
  const ids = await primaryIds(svc);
  await svc.kernel.stop();
  t.ok(
    ids.every((i) => rx.accepted().some((e) => e.id === i)),
    'every event written before stop reached the receiver',
  );
  t.equal(new Set(rx.accepted().map((e) => e.id)).size, rx.accepted().length, 'each once');
  t.notOk(existsSync(path.join(svc.dir, 'audit-webhook.deadletter.jsonl')), 'and none of them also in the dead letter');
});

t.test(
  'third-party sinks run in the thread; a sink that kills the thread ' +
    'leaves requests served, and a new thread delivers what came meanwhile',
  async (t) => {
    const dir = tempDir();
    const file = path.join(dir, 'svc.yaml');
    const copy = path.join(dir, 'copy.jsonl');
    writeFileSync(
      file,
      `plugins:\n  - ${path.join(ROOT, 'examples/audit-sink-jsonl/index.ts')}\n  - ${path.join(ROOT, 'test/fixtures/crashing-audit-sink.ts')}\nexampleJsonl:\n  file: ${copy}\n`,
    );
    const { svc, rx } = await threaded(t, {}, ['--config', file]);
    const api = svc.client();
    await api.post('/v1/keys', { spec: { name: 'before', algorithm: 'AES' } });
    await until(
      () => existsSync(copy) && readFileSync(copy, 'utf8').includes('Create'),
      'the example sink, loaded by path in the thread, wrote the event',
    );
    await until(() => rx.accepted().length >= 1, 'the webhook has it too');

    const key = await api.key({ algorithm: 'AES' });
    const crash = await api.post(`/v1/keys/${key}/rotate`, {});
    t.equal(crash.status, 200, 'the request does not wait on the thread');
    await until(async () => (await api.get('/readyz')).status === 503, '/readyz reports the sinks failing');
    const checks = (await api.get('/readyz')).body.checks;
    t.match(checks['sink:webhook'], { ok: false });
    t.match(checks['sink:crashing'], { ok: false });
    t.match(checks['audit-fanout-thread'], { ok: false });
    t.ok(
      svc.logs.some((l) => l.includes('the audit fan-out thread ended') && l.includes('the sink library blew up')),
      'the log says why',
    );

    const after = await api.key({ algorithm: 'AES' });
    t.ok(after, 'requests are still served while the thread is down');
    await until(async () => (await api.get('/readyz')).status === 200, 'a new thread, and /readyz ready again', 20_000);
    t.match((await api.get('/readyz')).body.checks['audit-fanout-thread'], { ok: true });
    t.ok(
      svc.logs.some((l) => l.includes('audit fan-out thread restarted')),
      'the restart is logged',
    );
    await until(
      () => rx.accepted().some((e) => JSON.stringify(e).includes(after)),
      'the event written while the thread was down reaches the webhook',
    );
    const id = await api.key({ algorithm: 'AES' });
    await until(() => rx.accepted().some((e) => JSON.stringify(e).includes(id)), 'and later ones too');
    t.notOk(existsSync(path.join(svc.dir, 'audit-webhook.deadletter.jsonl')), 'nothing dead-lettered');
  },
);

t.test(
  'a sink that needs more than the logger and clock refuses to boot in the thread, naming the setting',
  async (t) => {
    const dir = tempDir();
    const file = path.join(dir, 'svc.yaml');
    writeFileSync(file, `plugins:\n  - ${path.join(ROOT, 'test/fixtures/journal-reading-sink.ts')}\n`);
    await t.rejects(
      startTestService({ SVC_AUDIT_FANOUT_THREAD: 'true' }, { argv: ['--config', file] }),
      /the sink plugin "journal-reading-sink" depends on journal, which the fan-out thread does not have; set audit\.fanoutThread \(SVC_AUDIT_FANOUT_THREAD\) to false/,
    );
  },
);
