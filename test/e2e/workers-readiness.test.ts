import t from 'tap';
import { ApiClient } from '../helpers/client.ts';
import { freePort } from '../helpers/test-server.ts';
import { until } from '../helpers/until.ts';
import { webhookReceiver } from '../helpers/webhook-receiver.ts';
import { startWorkerNode } from '../helpers/worker-node.ts';

t.test(
  "a node of two workers: anonymous /readyz names every worker's failing check and its state only; a Human reads why",
  async (t) => {
    // A webhook receiver that is not there: each worker's sink fails, with an error naming where it sends.
    const closedPort = await freePort();
    const node = await startWorkerNode(2, undefined, {
      SVC_AUDIT_WEBHOOK_ENABLED: 'true',
      SVC_AUDIT_WEBHOOK_URL: `http://127.0.0.1:${closedPort}/siem-intake`,
      SVC_AUDIT_WEBHOOK_SECRET: 'webhook-secret-of-the-receiver-0123456789',
      SVC_AUDIT_WEBHOOK_MAX_RETRIES: '1000',
      SVC_AUDIT_WEBHOOK_INITIAL_BACKOFF_MS: '50',
      SVC_AUDIT_WEBHOOK_MAX_BACKOFF_MS: '100',
    });
    t.teardown(() => node.close());
    const human = new ApiClient(node.url, { 'X-Svc-User': 'ops' });
    const anonymous = new ApiClient(node.url);
    // Requests on fresh connections reach both workers, so both have an event to deliver.
    for (let i = 0; i < 6; i++)
      await human.call('POST', '/v1/keys', { spec: { name: `k${i}`, algorithm: 'AES' } }, { Connection: 'close' });
    await until(
      async () => {
        const checks = (await anonymous.get('/readyz')).body.checks;
        return checks['w1:sink:webhook']?.ok === false && checks['w2:sink:webhook']?.ok === false;
      },
      "both workers' webhook checks failing",
      30_000,
    );
    const seen = await anonymous.get('/readyz');
    t.equal(seen.status, 503);
    t.equal(seen.body.status, 'unready');
    t.same(
      seen.body.checks['w1:sink:webhook'],
      { ok: false, state: 'unavailable' },
      'the check and its state, nothing more',
    );
    t.same(seen.body.checks['w2:sink:webhook'], { ok: false, state: 'unavailable' });
    t.match(seen.body.checks, { 'worker:w1': { ok: true }, 'worker:w2': { ok: true } });
    t.notMatch(
      JSON.stringify(seen.body),
      new RegExp(`${closedPort}|siem-intake|127\\.0\\.0\\.1`),
      'the anonymous answer names no receiver of either worker',
    );
    const told = await human.get('/readyz');
    t.match(
      told.body.checks['w2:sink:webhook'],
      { ok: false, state: 'unavailable', detail: /delivery failing/ },
      'an authenticated Human reads why',
    );
  },
);

t.test(
  'a node of two workers with the fan-out thread: each worker runs its ' +
    'own, named in its logs, and every event arrives once',
  async (t) => {
    const rx = await webhookReceiver();
    t.teardown(() => rx.close());
    const node = await startWorkerNode(2, undefined, {
      SVC_AUDIT_FANOUT_THREAD: 'true',
      SVC_AUDIT_WEBHOOK_ENABLED: 'true',
      SVC_AUDIT_WEBHOOK_URL: rx.url,
      SVC_AUDIT_WEBHOOK_SECRET: 'webhook-secret-of-the-receiver-0123456789',
    });
    t.teardown(() => node.close());
    const human = new ApiClient(node.url, { 'X-Svc-User': 'ops' });
    const ids: string[] = [];
    for (let i = 0; i < 6; i++)
      ids.push(
        (await human.call('POST', '/v1/keys', { spec: { name: `t${i}`, algorithm: 'AES' } }, { Connection: 'close' }))
          .body.id,
      );
    const started = node.proc
      .stderr()
      .split('\n')
      .filter((l) => l.includes('"msg":"audit fan-out thread started"'))
      .map((l) => JSON.parse(l) as { worker: string; sinks: string[] });
    t.same(
      started.map((s) => s.worker).sort(),
      ['w1/audit-fanout', 'w2/audit-fanout'],
      'one thread per worker, each named in its log lines',
    );
    t.ok(started.every((s) => s.sinks.includes('webhook')));
    const checks = (await human.get('/readyz')).body.checks;
    t.match(
      checks,
      { 'w1:sink:webhook': { ok: true }, 'w2:sink:webhook': { ok: true } },
      "each worker's thread answers for its sink",
    );
    await until(
      () => ids.every((id) => rx.accepted().some((e) => e.operation === 'Create' && JSON.stringify(e).includes(id))),
      'every creation at the receiver',
    );
    const nodes = new Set(rx.accepted().map((e) => e.node));
    t.same([...nodes].sort(), ['kms-w1', 'kms-w2'], 'both workers delivered');
    t.equal(new Set(rx.accepted().map((e) => e.id)).size, rx.accepted().length, 'each event once');
  },
);
