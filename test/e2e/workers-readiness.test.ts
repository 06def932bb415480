import t from 'tap';
import { ApiClient } from '../helpers/client.ts';
import { freePort } from '../helpers/test-server.ts';
import { until } from '../helpers/until.ts';
import { startWorkerNode } from '../helpers/worker-node.ts';

t.test("a node of two workers: anonymous /readyz names every worker's failing check and its state only; a Human reads why", async (t) => {
  // A webhook receiver that is not there: each worker's sink fails, with an error naming where it sends.
  const closedPort = await freePort();
  const node = await startWorkerNode(2, undefined, {
    SVC_AUDIT_WEBHOOK_ENABLED: 'true', SVC_AUDIT_WEBHOOK_URL: `http://127.0.0.1:${closedPort}/siem-intake`, SVC_AUDIT_WEBHOOK_SECRET: 'webhook-secret-of-the-receiver-0123456789',
    SVC_AUDIT_WEBHOOK_MAX_RETRIES: '1000', SVC_AUDIT_WEBHOOK_INITIAL_BACKOFF_MS: '50', SVC_AUDIT_WEBHOOK_MAX_BACKOFF_MS: '100',
  });
  t.teardown(() => node.close());
  const human = new ApiClient(node.url, { 'X-Svc-User': 'ops' });
  const anonymous = new ApiClient(node.url);
  // Requests on fresh connections reach both workers, so both have an event to deliver.
  for (let i = 0; i < 6; i++) await human.call('POST', '/v1/keys', { spec: { name: `k${i}`, algorithm: 'AES' } }, { Connection: 'close' });
  await until(async () => {
    const checks = (await anonymous.get('/readyz')).body.checks;
    return checks['w1:sink:webhook']?.ok === false && checks['w2:sink:webhook']?.ok === false;
  }, "both workers' webhook checks failing", 30_000);
  const seen = await anonymous.get('/readyz');
  t.equal(seen.status, 503);
  t.equal(seen.body.status, 'unready');
  t.same(seen.body.checks['w1:sink:webhook'], { ok: false, state: 'unavailable' }, 'the check and its state, nothing more');
  t.same(seen.body.checks['w2:sink:webhook'], { ok: false, state: 'unavailable' });
  t.match(seen.body.checks, { 'worker:w1': { ok: true }, 'worker:w2': { ok: true } });
  t.notMatch(JSON.stringify(seen.body), new RegExp(`${closedPort}|siem-intake|127\\.0\\.0\\.1`), "the anonymous answer names no receiver of either worker");
  const told = await human.get('/readyz');
  t.match(told.body.checks['w2:sink:webhook'], { ok: false, state: 'unavailable', detail: /delivery failing/ }, 'an authenticated Human reads why');
});
