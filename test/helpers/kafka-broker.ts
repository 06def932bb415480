import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { Kafka, logLevel } from 'kafkajs';
import type { Test } from 'tap';
import { serverMissing } from './test-server.ts';

export interface KafkaBroker {
  bootstrap: string;
  /** Broker 1 refuses connections (and drops those it has) until `up`; its data stays. */
  down(): Promise<void>;
  up(): Promise<void>;
  /** Every message of `topic` so far (up to its high watermarks), with its partition, read by a real consumer. */
  messages(
    topic: string,
  ): Promise<Array<{ partition: number; key: string; value: any; headers: Record<string, string> }>>;
}

/** A Kafka-protocol broker of this test's own (librdkafka's mock cluster, built by scripts/test-services.sh). */
export async function kafkaBroker(t: Test, topics: string[]): Promise<KafkaBroker | undefined> {
  const bin = process.env.SVC_TEST_KAFKA_MOCK;
  if (!bin) return serverMissing(t, 'Kafka mock broker not built (SVC_TEST_KAFKA_MOCK unset; run through npm test)');
  const child = spawn(bin, ['1', ...topics], { stdio: ['pipe', 'pipe', 'ignore'] });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async () => String((await lines.next()).value ?? '');
  const first = await next();
  const bootstrap = first.replace(/^bootstrap /, '');
  if (!first.startsWith('bootstrap ')) return serverMissing(t, `Kafka mock broker did not start: ${first}`);
  const command = async (line: string) => {
    child.stdin!.write(`${line}\n`);
    if ((await next()) !== 'ok') throw new Error(`mock broker refused "${line}"`);
  };
  t.teardown(() => {
    child.stdin!.end();
    child.kill('SIGTERM');
  });
  return {
    bootstrap,
    down: () => command('down 1'),
    up: () => command('up 1'),
    messages: async (topic) => {
      const kafka = new Kafka({ clientId: 'test-reader', brokers: [bootstrap], logLevel: logLevel.NOTHING });
      const admin = kafka.admin();
      await admin.connect();
      const atLeast = (await admin.fetchTopicOffsets(topic)).reduce((n, p) => n + Number(p.high), 0);
      await admin.disconnect();
      if (atLeast === 0) return [];
      const consumer = kafka.consumer({ groupId: `reader-${Math.random()}` });
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      const got: Array<{ partition: number; key: string; value: any; headers: Record<string, string> }> = [];
      let done: () => void = () => {};
      const enough = new Promise<void>((resolve) => (done = resolve));
      await consumer.run({
        eachMessage: async ({ partition, message }) => {
          got.push({
            partition,
            key: String(message.key),
            value: JSON.parse(String(message.value)),
            headers: Object.fromEntries(Object.entries(message.headers ?? {}).map(([k, v]) => [k, String(v)])),
          });
          if (got.length >= atLeast) done();
        },
      });
      const timer = setTimeout(done, 20_000);
      await enough;
      clearTimeout(timer);
      await consumer.disconnect();
      return got;
    },
  };
}
