import { createHmac } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import t, { type Test } from 'tap';
import { AuditEventSchema } from '../../kernel/audit/audit-event-schema.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { until } from '../helpers/until.ts';
import { webhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

const SECRET = 'webhook-secret-of-the-receiver-0123456789';
const ajv = new Ajv({ strict: false });
addFormats.default(ajv);
const canonical = ajv.compile(AuditEventSchema);

async function withWebhook(
  t: Test,
  extra: Record<string, string> = {},
): Promise<{ svc: TestService; rx: WebhookReceiver; deadLetters: () => any[] }> {
  const rx = await webhookReceiver();
  t.teardown(() => rx.close());
  const svc = await startTestService({
    SVC_AUDIT_WEBHOOK_ENABLED: 'true',
    SVC_AUDIT_WEBHOOK_URL: rx.url,
    SVC_AUDIT_WEBHOOK_SECRET: SECRET,
    SVC_AUDIT_WEBHOOK_INITIAL_BACKOFF_MS: '10',
    SVC_AUDIT_WEBHOOK_MAX_BACKOFF_MS: '40',
    SVC_AUDIT_WEBHOOK_CONCURRENCY: '1',
    SVC_NODE_ID: 'node-a',
    ...extra,
  });
  t.teardown(() => svc.stop());
  const file = path.join(svc.dir, 'audit-webhook.deadletter.jsonl');
  return {
    svc,
    rx,
    deadLetters: () =>
      existsSync(file)
        ? readFileSync(file, 'utf8')
            .trim()
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l))
        : [],
  };
}

/** The ids of the audit rows of the primary sink, oldest first (the read's own Query row comes after them). */
async function primaryIds(svc: TestService): Promise<string[]> {
  const page = await svc.client().get('/v1/audit?limit=1000');
  return page.body.records.map((r: { id: string }) => r.id).reverse();
}

t.test('every audit event reaches the receiver once, signed, canonical, with its id header', async (t) => {
  const { svc, rx } = await withWebhook(t);
  const api = svc.client();
  const id = await api.key({ algorithm: 'AES' });
  await api.post(`/v1/keys/${id}/encrypt`, { plaintextBase64: 'aGVsbG8=' });
  await api.post(`/v1/keys/${id}/decrypt`, { ciphertextBase64: 'bm90IGEgY2lwaGVydGV4dA==' });
  const ids = await primaryIds(svc);
  await until(() => rx.accepted().length >= ids.length, 'all events at the receiver');
  t.same(
    rx
      .accepted()
      .map((e) => e.id)
      .slice(0, ids.length),
    ids,
    'the same events as the primary sink, in order (concurrency 1)',
  );
  for (const post of rx.posts) {
    t.equal(post.headers['content-type'], 'application/json');
    t.equal(post.headers['x-svc-event-id'], JSON.parse(post.body).id);
    t.equal(
      post.headers['x-svc-signature'],
      `sha256=${createHmac('sha256', SECRET).update(post.body).digest('hex')}`,
      'HMAC of the raw body',
    );
    t.ok(canonical(JSON.parse(post.body)), 'a canonical event');
  }
  t.match(rx.accepted()[0], {
    schemaVersion: 1,
    node: 'node-a',
    principal: { subject: 'alice', kind: 'Human' },
    operation: 'Create',
  });
  t.notOk(
    rx.posts.some((p) => p.body.includes('aGVsbG8=')),
    'no plaintext leaves with the audit',
  );
  t.notOk(rx.posts.some((p) => p.body.includes(SECRET)));
});

t.test(
  'fault matrix: 500 x 3 then 200 delivers once; a 4xx dead-letters at once; exhausted retries dead-letter',
  async (t) => {
    const { svc, rx, deadLetters } = await withWebhook(t, { SVC_AUDIT_WEBHOOK_MAX_RETRIES: '3' });
    const api = svc.client();
    rx.answer(500, 500, 500);
    const first = await api.post('/v1/keys', { spec: { name: 'one', algorithm: 'AES' } });
    t.equal(first.status, 201, 'the request never waits on the webhook');
    await until(() => rx.accepted().length === 1, 'the retried event');
    t.equal(rx.posts.length, 4, '3 failures then the success');
    t.equal(new Set(rx.posts.map((p) => p.headers['x-svc-event-id'])).size, 1, 'the same event each time');

    rx.answer(400);
    await api.post('/v1/keys', { spec: { name: 'two', algorithm: 'AES' } });
    await until(() => deadLetters().length === 1, 'the rejected event in the dead letter');
    t.equal(rx.posts.length, 5, 'a 4xx is not retried');
    t.match(deadLetters()[0], {
      sink: 'webhook',
      error: /answered 400/,
      attempts: 1,
      event: { operation: 'Create', resource: /^name:two|[0-9a-f-]{36}$/ },
    });

    rx.answer(503, 503, 503, 503);
    await api.post('/v1/keys', { spec: { name: 'three', algorithm: 'AES' } });
    await until(() => deadLetters().length === 2, 'the exhausted event in the dead letter');
    t.match(deadLetters()[1], { sink: 'webhook', error: /answered 503/, attempts: 4 });
    t.equal(rx.posts.length, 9, '1 + 3 retries');

    const ids = await primaryIds(svc);
    const arrived = new Set([...rx.accepted().map((e) => e.id), ...deadLetters().map((d) => d.event.id)]);
    t.ok(
      ids.every((id) => arrived.has(id)),
      'every event delivered or dead-lettered: nothing lost',
    );
    const metrics = (await svc.client().get('/metrics')).body as string;
    t.match(metrics, /svc_audit_sink_events_total\{sink="webhook",result="dead_lettered"\} 2/);
    t.match(metrics, /svc_audit_sink_events_total\{sink="webhook",result="retried"\} 6/);
    t.match(metrics, /svc_audit_sink_queue_depth\{sink="webhook"\} 0/);
  },
);

t.test('receiver down then up: /readyz shows sink:webhook failing, then everything arrives', async (t) => {
  const { svc, rx, deadLetters } = await withWebhook(t, { SVC_AUDIT_WEBHOOK_MAX_RETRIES: '1000' });
  const api = svc.client();
  await rx.down();
  for (let i = 0; i < 5; i++)
    t.equal((await api.post('/v1/keys', { spec: { name: `k${i}`, algorithm: 'AES' } })).status, 201);
  await until(async () => (await api.get('/readyz')).status === 503, 'readyz to report the sink');
  const ready = await api.get('/readyz');
  t.match(ready.body.checks['sink:webhook'], { ok: false, detail: /unreachable/ });
  t.equal(ready.body.checks.audit.ok, true, 'the primary sink is fine');
  await rx.up();
  const ids = await primaryIds(svc);
  await until(() => rx.accepted().length >= ids.length, 'the backlog at the receiver');
  t.same(
    rx
      .accepted()
      .map((e) => e.id)
      .slice(0, ids.length),
    ids,
    'in order, none lost',
  );
  t.same(deadLetters(), []);
  await until(async () => (await api.get('/readyz')).status === 200, 'readyz to recover');
});

t.test('queue full: the overflow goes to the dead letter at once, the rest is delivered', async (t) => {
  const { svc, rx, deadLetters } = await withWebhook(t, {
    SVC_AUDIT_WEBHOOK_QUEUE_CAPACITY: '3',
    SVC_AUDIT_WEBHOOK_MAX_RETRIES: '1000',
  });
  const api = svc.client();
  await rx.down();
  for (let i = 0; i < 8; i++) await api.post('/v1/keys', { spec: { name: `q${i}`, algorithm: 'AES' } });
  await until(() => deadLetters().length >= 4, 'the overflow');
  t.ok(deadLetters().every((d) => d.error === 'queue full' && d.attempts === 0));
  await rx.up();
  // The audit read below is audited too; while the queue is still full its own event overflows to the
  // dead letter, so counting events would stop one short: wait for each of the primary's ids instead.
  const ids = await primaryIds(svc);
  const landed = () => [...rx.accepted().map((e) => e.id), ...deadLetters().map((d) => d.event.id)];
  await until(() => ids.every((id) => landed().includes(id)), 'each event delivered or dead-lettered, none lost');
  t.equal(new Set(landed()).size, landed().length, 'none twice');
  t.same(
    rx
      .accepted()
      .map((e) => e.id)
      .slice(0, 4),
    ids.slice(0, 4),
    'the four that fit (one in flight, three queued) reach the receiver in order',
  );
});

t.test('boot refuses plain http to a non-loopback host, and an enabled webhook without a secret', async (t) => {
  await t.rejects(
    startTestService({
      SVC_AUDIT_WEBHOOK_ENABLED: 'true',
      SVC_AUDIT_WEBHOOK_URL: 'http://siem.example.com/in',
      SVC_AUDIT_WEBHOOK_SECRET: SECRET,
    }),
    /must be https/,
  );
  await t.rejects(
    startTestService({ SVC_AUDIT_WEBHOOK_ENABLED: 'true', SVC_AUDIT_WEBHOOK_URL: 'https://siem.example.com/in' }),
    /url and secret are required/,
  );
});

t.test(
  '/docs/audit-event.schema.json serves the canonical event schema, and what the webhook receives matches it',
  async (t) => {
    const { svc, rx } = await withWebhook(t);
    const res = await fetch(`${svc.url}/docs/audit-event.schema.json`);
    t.equal(res.status, 200);
    t.match(res.headers.get('content-type'), /application\/schema\+json/);
    const schema = await res.json();
    t.match(schema, {
      title: 'AuditEvent',
      properties: { schemaVersion: { const: 1 } },
      required: ['schemaVersion', 'id', 'occurredAt', 'node'],
    });
    const served = new Ajv({ strict: false });
    addFormats.default(served);
    const check = served.compile({ ...schema, $schema: undefined });
    await svc.client().post('/v1/keys', { spec: { name: 'schema', algorithm: 'AES' } });
    await until(() => rx.accepted().length >= 1, 'an event');
    t.ok(check(rx.accepted()[0]), JSON.stringify(check.errors));
  },
);
