import t from 'tap';
import { ApiClient, b64 } from '../helpers/client.ts';
import { grpcReceiver, httpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.ts';
import { spawnService } from '../helpers/process.ts';

const BASE = {
  SVC_HTTP_HOST: '127.0.0.1',
  SVC_HTTP_PORT: '0',
  OTEL_TRACES_EXPORTER: 'otlp',
  OTEL_BSP_SCHEDULE_DELAY: '100',
  OTEL_SERVICE_NAME: 'svc-kms-under-test',
};

/** Waits (bounded) until the receiver holds a span that satisfies `match`. */
async function spanArrives(receiver: OtlpReceiver, match: (s: ReceivedSpan) => boolean): Promise<ReceivedSpan> {
  for (let i = 0; i < 100; i++) {
    const found = receiver.spans.find(match);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no matching span arrived; received: ${receiver.spans.map((s) => s.name).join(', ')}`);
}

const childrenOf = (receiver: OtlpReceiver, parent: ReceivedSpan) =>
  receiver.spans
    .filter((s) => s.parentSpanId === parent.spanId && s.traceId === parent.traceId)
    .map((s) => s.name)
    .sort();

for (const protocol of ['http/protobuf', 'http/json', 'grpc']) {
  t.test(
    `OTLP ${protocol}: kms.<operation> spans with journal, root-of-trust and audit children reach a real receiver`,
    async (t) => {
      const receiver = protocol === 'grpc' ? await grpcReceiver() : await httpReceiver();
      t.teardown(() => receiver.close());
      const svc = spawnService({
        ...BASE,
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: protocol,
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: receiver.endpoint,
      });
      t.teardown(() => svc.child.kill('SIGKILL'));
      const api = new ApiClient(`http://127.0.0.1:${await svc.listening}`, { 'X-Svc-User': 'tracy' });
      const id = await api.key({ algorithm: 'AES' });
      t.equal((await api.post(`/v1/keys/${id}/encrypt`, { plaintextBase64: b64('traced') })).status, 200);
      t.equal(
        (await api.post('/v1/keys/00000000-0000-4000-8000-000000000000/encrypt', { plaintextBase64: b64('x') })).status,
        404,
      );

      const create = await spanArrives(receiver, (s) => s.name === 'kms.Create');
      t.match(create.attributes, {
        'svc.operation': 'Create',
        'svc.principal.subject': 'tracy',
        'svc.principal.kind': 'human',
        'svc.key.id': id,
        'svc.outcome': 'success',
      });
      t.equal(create.serviceName, 'svc-kms-under-test');
      t.same(childrenOf(receiver, create), [
        'audit.write',
        'journal.append',
        'journal.nameHolder',
        'journal.putKwk',
        'journal.putMaterial',
        'rootOfTrust.wrap',
      ]);

      const encrypt = await spanArrives(
        receiver,
        (s) => s.name === 'kms.Encrypt' && s.attributes['svc.outcome'] === 'success',
      );
      t.equal(encrypt.attributes['svc.key.id'], id);
      t.ok(childrenOf(receiver, encrypt).includes('audit.write'), 'the audit write is a child of the operation span');
      const refused = await spanArrives(
        receiver,
        (s) => s.name === 'kms.Encrypt' && s.attributes['svc.outcome'] === 'error_KeyNotFound',
      );
      t.equal(refused.statusCode, 2, 'a failed operation has span status ERROR');
      if (protocol !== 'grpc')
        t.match(receiver.contentTypes[0], protocol === 'http/json' ? /application\/json/ : /application\/x-protobuf/);
    },
  );
}

t.test('an unknown exporter or protocol fails the boot with a sentence', async (t) => {
  const svc = spawnService({ ...BASE, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'carrier-pigeon' });
  t.equal(await svc.exited, 1);
  t.match(svc.stderr(), /OTEL_EXPORTER_OTLP_TRACES_PROTOCOL must be http\/protobuf, http\/json or grpc/);
});

t.test(
  'an OTLP endpoint in plain http to a host that is not loopback fails the boot, naming the variable',
  async (t) => {
    for (const name of ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_ENDPOINT']) {
      const svc = spawnService({ ...BASE, [name]: 'http://collector.example.com:4318/v1/traces' });
      t.teardown(() => svc.child.kill('SIGKILL'));
      const outcome = await Promise.race([
        svc.exited.then((code) => `exited with ${code}`),
        svc.listening.then(
          () => 'listening',
          () => new Promise<never>(() => {}),
        ),
      ]);
      t.equal(outcome, 'exited with 1', `${name}: the boot fails`);
      t.match(
        svc.stderr(),
        new RegExp(
          `${name} must be https:// \\(plain http:// only to a loopback host\\), got http://collector\\.example\\.com:4318`,
        ),
      );
    }
  },
);
