import t from 'tap';
import { connect } from 'nats';
import { auditFanoutContract, contractEvent } from '../../contracts/audit-fanout.ts';
import { createStderrLogger } from '../../kernel/logger.ts';
import {
  MessageStreamSink,
  type MessageStreamSettings,
} from '../../plugins/audit-fanout/message-stream/message-stream-sink.ts';
import { natsServer } from '../helpers/nats-server.ts';
import { tempDir } from '../helpers/service.ts';

const quiet = createStderrLogger('error', () => {});
const settings = (url: string, more: Partial<MessageStreamSettings> = {}): MessageStreamSettings => ({
  name: 'message-stream',
  servers: [url],
  stream: 'SVC_AUDIT',
  subject: 'svc.audit',
  autoCreateStream: false,
  credentialsFile: '',
  delivery: {
    queueCapacity: 100,
    maxRetries: 0,
    initialBackoffMs: 1,
    maxBackoffMs: 1,
    deadLetterFile: `${tempDir()}/dl.jsonl`,
    batchSize: 100,
    concurrency: 1,
  },
  ...more,
});

t.test('the message-stream sink passes the fan-out conformance suite against NATS JetStream', async (t) => {
  auditFanoutContract(t, async () => {
    const nats = await natsServer(t);
    if (!nats) throw new Error('no nats-server');
    await nats.createStream('SVC_AUDIT', 'svc.audit');
    return {
      sink: new MessageStreamSink(settings(nats.url), quiet),
      delivered: async () => (await nats.messages('SVC_AUDIT')).map((m) => m.value),
      breakDestination: () => nats.stop(),
    };
  });
});

t.test('Nats-Msg-Id is the event id: a batch delivered twice is stored once', async (t) => {
  const nats = await natsServer(t);
  if (!nats) return;
  await nats.createStream('SVC_AUDIT', 'svc.audit');
  const sink = new MessageStreamSink(settings(nats.url), quiet);
  t.teardown(() => sink.stop());
  const batch = [1, 2, 3].map(contractEvent);
  await sink.deliverBatch(batch);
  await sink.deliverBatch(batch);
  const stored = await nats.messages('SVC_AUDIT');
  t.same(
    stored.map((m) => m.msgId),
    batch.map((e) => e.id),
  );
});

t.test(
  'batches published at once are each acknowledged whole: every message stored, each batch in its order',
  async (t) => {
    const nats = await natsServer(t);
    if (!nats) return;
    await nats.createStream('SVC_AUDIT', 'svc.audit');
    const sink = new MessageStreamSink(settings(nats.url), quiet);
    t.teardown(() => sink.stop());
    const batches = [0, 1, 2, 3, 4].map((b) => Array.from({ length: 40 }, (_, i) => contractEvent(b * 100 + i)));
    await Promise.all(batches.map((batch) => sink.deliverBatch(batch)));
    const stored = (await nats.messages('SVC_AUDIT')).map((m) => m.msgId);
    t.equal(stored.length, 200);
    for (const batch of batches)
      t.same(
        stored.filter((id) => batch.some((e) => e.id === id)),
        batch.map((e) => e.id),
      );
  },
);

t.test(
  "a message the stream refuses fails its batch with the stream's reason (retried, then dead-lettered)",
  async (t) => {
    const nats = await natsServer(t);
    if (!nats) return;
    const nc = await connect({ servers: nats.url });
    await (await nc.jetstreamManager()).streams.add({ name: 'SVC_AUDIT', subjects: ['svc.audit'], max_msg_size: 64 });
    await nc.close();
    const sink = new MessageStreamSink(settings(nats.url), quiet);
    t.teardown(() => sink.stop());
    await t.rejects(
      sink.deliverBatch([1, 2].map(contractEvent)),
      /^message-stream svc\.audit: .*message size exceeds maximum/,
    );
  },
);

t.test('a missing stream fails the delivery with a clear message; autoCreateStream creates it', async (t) => {
  const nats = await natsServer(t);
  if (!nats) return;
  const plain = new MessageStreamSink(settings(nats.url), quiet);
  t.teardown(() => plain.stop());
  await t.rejects(plain.deliver(contractEvent(1)), /no stream captures the subject \(SVC_AUDIT missing\?\)/);
  const creating = new MessageStreamSink(settings(nats.url, { autoCreateStream: true }), quiet);
  t.teardown(() => creating.stop());
  await creating.deliver(contractEvent(2));
  t.same(
    (await nats.messages('SVC_AUDIT')).map((m) => m.value),
    [contractEvent(2)],
  );
});

t.test(
  'a credentials file that went missing after boot is named in the error, at the connect that reads it',
  async (t) => {
    const nats = await natsServer(t);
    if (!nats) return;
    const sink = new MessageStreamSink(settings(nats.url, { credentialsFile: '/nonexistent/svc.creds' }), quiet);
    t.teardown(() => sink.stop());
    await t.rejects(
      sink.deliver(contractEvent(1)),
      /credentials file \/nonexistent\/svc\.creds cannot be read \(ENOENT\)/,
    );
  },
);
