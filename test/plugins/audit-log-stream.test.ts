import t from 'tap';
import { auditFanoutContract, contractEvent } from '../../contracts/audit-fanout.ts';
import { createStderrLogger } from '../../kernel/logger.ts';
import { LogStreamSink } from '../../plugins/audit-fanout/log-stream/log-stream-sink.ts';
import { kafkaBroker } from '../helpers/kafka-broker.ts';
import { tempDir } from '../helpers/service.ts';

const quiet = createStderrLogger('error', () => {});
const delivery = {
  queueCapacity: 100,
  maxRetries: 0,
  initialBackoffMs: 1,
  maxBackoffMs: 1,
  deadLetterFile: `${tempDir()}/dl.jsonl`,
  batchSize: 100,
  concurrency: 1,
};

t.test('the log-stream sink passes the fan-out conformance suite against a Kafka-protocol broker', async (t) => {
  let n = 0;
  auditFanoutContract(t, async () => {
    const topic = `contract-${++n}`;
    const broker = await kafkaBroker(t, [`${topic}:1`]);
    if (!broker) throw new Error('no broker');
    const sink = new LogStreamSink(
      { name: 'log-stream', brokers: [broker.bootstrap], topic, clientId: 'svc-kms', delivery },
      quiet,
    );
    return {
      sink,
      delivered: async () => (await broker.messages(topic)).map((m) => m.value),
      breakDestination: () => broker.down(),
    };
  });
});

t.test('messages carry the correlationId as key and the event id as header', async (t) => {
  const broker = await kafkaBroker(t, ['keys:3']);
  if (!broker) return;
  const sink = new LogStreamSink(
    { name: 'log-stream', brokers: [broker.bootstrap], topic: 'keys', clientId: 'svc-kms', delivery },
    quiet,
  );
  t.teardown(() => sink.stop());
  await sink.deliverBatch([1, 2, 3].map(contractEvent));
  const got = await broker.messages('keys');
  t.same(
    got.map((m) => [m.key, m.headers['svc-event-id']]).sort(),
    [1, 2, 3].map((i) => [`req-${i}`, contractEvent(i).id]).sort(),
  );
});
