import { writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { startTestService, tempDir } from '../helpers/service.ts';
import { until } from '../helpers/until.ts';
import { webhookReceiver } from '../helpers/webhook-receiver.ts';

t.test(
  'audit.sinks entries take every setting a sink has, enabled among them; enabled: false is not started',
  async (t) => {
    const [a, b] = [await webhookReceiver(), await webhookReceiver()];
    t.teardown(() => Promise.all([a.close(), b.close()]));
    const dir = tempDir();
    const delivery = 'maxRetries: 3, initialBackoffMs: 10, maxBackoffMs: 100, queueCapacity: 100';
    const file = path.join(dir, 'svc.yaml');
    writeFileSync(
      file,
      [
        'audit:',
        '  sinks:',
        `    - {kind: webhook, name: siem-a, enabled: true, url: "${a.url}", secret: secret-a, ${delivery}, deadLetterFile: "${path.join(dir, 'a.jsonl')}"}`,
        `    - {kind: webhook, name: siem-b, enabled: false, url: "${b.url}", secret: secret-b, ${delivery}, deadLetterFile: "${path.join(dir, 'b.jsonl')}"}`,
        '    - {kind: webhook, name: siem-later, enabled: false}',
        `    - {kind: log-stream, name: kafka, enabled: false, bootstrapServers: "", topic: svc-audit, clientId: svc-kms, ${delivery}}`,
        `    - {kind: message-stream, name: bus, enabled: false, servers: "", stream: SVC_AUDIT, subject: svc.audit, autoCreateStream: false, credentialsFile: "", ${delivery}}`,
        '',
      ].join('\n'),
    );
    const svc = await startTestService({}, { argv: ['--config', file] });
    t.teardown(() => svc.stop());
    const checks = (await svc.client().get('/readyz')).body.checks as Record<string, unknown>;
    t.ok(checks['sink:siem-a'], 'the enabled webhook is started');
    t.same(
      Object.keys(checks).filter((name) => /^sink:(siem-b|siem-later|kafka|bus)$/.test(name)),
      [],
      'no disabled sink is started, of any kind',
    );
    await svc.client().post('/v1/keys', { spec: { name: 'fan', algorithm: 'AES' } });
    await until(() => a.accepted().length >= 1, 'siem-a to receive the event');
    t.equal(b.accepted().length, 0, 'the disabled webhook receives nothing');
  },
);

t.test('enabled must be a boolean, and a disabled entry is still checked for settings of its kind', async (t) => {
  const file = path.join(tempDir(), 'svc.yaml');
  writeFileSync(
    file,
    'audit:\n  sinks:\n    - {kind: log-stream, name: kafka, enabled: "maybe", bootstrapServers: "k:9092"}\n',
  );
  await t.rejects(
    startTestService({}, { argv: ['--config', file] }),
    /audit\.sinks\[0\] \(log-stream sink\): enabled must be boolean/,
  );
  writeFileSync(
    file,
    'audit:\n  sinks:\n    - {kind: message-stream, name: bus, enabled: false, server: "nats://n:4222"}\n',
  );
  await t.rejects(
    startTestService({}, { argv: ['--config', file] }),
    /audit\.sinks\[0\] \(message-stream sink\): server is not a setting of this kind/,
  );
});
