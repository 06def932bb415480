import { existsSync } from 'node:fs';
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import t, { type Test } from 'tap';
import { b64 } from '../helpers/client.ts';
import { startTestService } from '../helpers/service.ts';
import { until } from '../helpers/until.ts';

/**
 * A webhook receiver on 127.0.0.1 with `handle`, and a service whose webhook sink points at it, both stopped at the
 * end.
 */
async function serviceWithReceiver(t: Test, handle: RequestListener, env: Record<string, string> = {}) {
  const receiver = createServer(handle);
  receiver.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => receiver.close(() => resolve())).then(() => undefined));
  receiver.unref();
  const svc = await startTestService({
    SVC_AUDIT_WEBHOOK_ENABLED: 'true',
    SVC_AUDIT_WEBHOOK_URL: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/audit`,
    SVC_AUDIT_WEBHOOK_SECRET: 'webhook-secret-of-the-receiver-0123456789',
    ...env,
  });
  t.teardown(() => svc.stop());
  return svc;
}

t.test(
  'a burst of events: several POSTs in flight on kept-alive connections, each event delivered once, none dead-lettered',
  async (t) => {
    // A healthy receiver that takes some milliseconds per event, as a real one does (long enough that POSTs overlap on
    // any machine).
    const ids: string[] = [];
    const ports = new Set<number>();
    let inFlight = 0;
    let most = 0;
    const svc = await serviceWithReceiver(t, (req, res) => {
      most = Math.max(most, ++inFlight);
      ports.add(req.socket.remotePort!);
      const id = String(req.headers['x-svc-event-id']);
      req.resume();
      req.on('end', () =>
        setTimeout(() => {
          inFlight--;
          ids.push(id);
          res.end('ok');
        }, 20),
      );
    });
    const api = svc.client();
    const key = await api.key({ algorithm: 'AES' });
    const answers = await Promise.all(
      Array.from({ length: 400 }, (_, i) =>
        api.post(`/v1/keys/${key}/encrypt`, { plaintextBase64: b64(`burst ${i}`) }),
      ),
    );
    t.same(answers.filter((a) => a.status !== 200).length, 0, 'every encrypt answered');
    const written = (await api.get('/v1/audit?limit=1000')).body.records.map((r: { id: string }) => r.id) as string[];
    t.ok(written.length >= 402, 'create, activate and 400 encrypts are on the primary trail');
    await until(() => written.every((id) => ids.includes(id)), 'every event at the receiver', 30_000);
    t.equal(new Set(ids).size, ids.length, 'no event arrived twice');
    t.ok(most > 1, `several POSTs were in flight at once (at most ${most})`);
    t.ok(
      ports.size <= 64 && ports.size < ids.length / 4,
      `256 in flight, four to a connection: at most 64 connections, kept alive and reused (${ports.size} for ${ids.length} POSTs)`,
    );
    t.notOk(existsSync(path.join(svc.dir, 'audit-webhook.deadletter.jsonl')), 'nothing was dead-lettered');
    const metrics = (await api.get('/metrics')).body as string;
    t.notMatch(metrics, /svc_audit_sink_events_total\{sink="webhook",result="dead_lettered"\} [1-9]/);
  },
);

t.test(
  'pipelined POSTs: a receiver that drops connections with POSTs in ' +
    'flight loses no event (some arrive twice, as after any retry)',
  async (t) => {
    const ids: string[] = [];
    let seen = 0;
    const svc = await serviceWithReceiver(
      t,
      (req, res) => {
        const id = String(req.headers['x-svc-event-id']);
        req.resume();
        req.on('end', () => {
          // Every 25th POST, the connection goes down unanswered, taking the POSTs queued behind it on that connection.
          if (++seen % 25 === 0) return req.socket.destroy();
          ids.push(id);
          res.end('ok');
        });
      },
      { SVC_AUDIT_WEBHOOK_INITIAL_BACKOFF_MS: '10' },
    );
    const api = svc.client();
    const key = await api.key({ algorithm: 'AES' });
    const answers = await Promise.all(
      Array.from({ length: 300 }, (_, i) => api.post(`/v1/keys/${key}/encrypt`, { plaintextBase64: b64(`drop ${i}`) })),
    );
    t.same(answers.filter((a) => a.status !== 200).length, 0, 'every encrypt answered');
    const written = (await api.get('/v1/audit?limit=1000')).body.records.map((r: { id: string }) => r.id) as string[];
    await until(() => written.every((id) => ids.includes(id)), 'every event at the receiver', 30_000);
    t.ok(seen > ids.length, `connections were dropped with POSTs in flight (${seen - ids.length} unanswered)`);
    t.notOk(existsSync(path.join(svc.dir, 'audit-webhook.deadletter.jsonl')), 'nothing was dead-lettered');
  },
);
