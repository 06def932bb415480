import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { ApiClient } from '../helpers/client.ts';
import { kafkaBroker } from '../helpers/kafka-broker.ts';
import { startTestService } from '../helpers/service.ts';
import { until } from '../helpers/until.ts';

t.test('log-stream: per-correlationId order on the topic, and a broker down then up loses nothing', async (t) => {
  const broker = await kafkaBroker(t, ['svc-audit:4']);
  if (!broker) return;
  const svc = await startTestService({
    SVC_AUDIT_LOGSTREAM_ENABLED: 'true',
    SVC_AUDIT_LOGSTREAM_BOOTSTRAP_SERVERS: broker.bootstrap,
    SVC_AUDIT_LOGSTREAM_INITIAL_BACKOFF_MS: '20',
    SVC_AUDIT_LOGSTREAM_MAX_BACKOFF_MS: '200',
    SVC_AUDIT_LOGSTREAM_MAX_RETRIES: '1000',
  });
  t.teardown(() => svc.stop());
  // Three workflows, each under its own X-Request-Id (so its own correlationId), run side by side.
  const flows = ['flow-a-0001', 'flow-b-0002', 'flow-c-0003'];
  const run = async (flow: string, from: number, to: number) => {
    const api = new ApiClient(svc.url, { 'X-Svc-User': 'alice', 'X-Request-Id': flow });
    for (let i = from; i < to; i++) {
      const created = await api.post('/v1/keys', { spec: { name: `${flow}-${i}`, algorithm: 'AES' } });
      await api.post(`/v1/keys/${created.body.id}/activate`);
      await api.post(`/v1/keys/${created.body.id}/encrypt`, { plaintextBase64: 'aGk=' });
    }
  };
  await Promise.all(flows.map((f) => run(f, 0, 3)));
  await broker.down();
  await Promise.all(flows.map((f) => run(f, 3, 6)));
  await until(
    async () => (await svc.client().get('/readyz')).body.checks['sink:log-stream']?.ok === false,
    'the sink to report the outage',
  );
  await broker.up();

  const primary = (await svc.client().get('/v1/audit?limit=1000')).body.records.reverse();
  const expected = primary.filter((r: { correlationId: string }) => flows.includes(r.correlationId));
  t.equal(expected.length, 3 * 6 * 3, 'every call of every flow audited');
  let got: Awaited<ReturnType<typeof broker.messages>> = [];
  await until(
    async () =>
      (got = (await broker.messages('svc-audit')).filter((m) => flows.includes(m.key))).length >= expected.length,
    'the backlog on the topic',
    40_000,
  );
  for (const flow of flows) {
    const onTopic = got.filter((m) => m.key === flow);
    t.equal(new Set(onTopic.map((m) => m.partition)).size, 1, `${flow}: one partition`);
    t.same(
      onTopic.map((m) => m.value.id),
      expected.filter((r: { correlationId: string }) => r.correlationId === flow).map((r: { id: string }) => r.id),
      `${flow}: every event, in the primary's order`,
    );
    t.ok(
      onTopic.every((m) => m.headers['svc-event-id'] === m.value.id),
      'svc-event-id header',
    );
  }
  const deadLetter = path.join(svc.dir, 'audit-log-stream.deadletter.jsonl');
  t.notOk(existsSync(deadLetter) && readFileSync(deadLetter, 'utf8').trim(), 'nothing dead-lettered');
  await until(async () => (await svc.client().get('/readyz')).status === 200, 'readiness back');
});
