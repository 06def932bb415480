import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { connect, createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The three secondary sinks' receivers, each a process of its own, and where the service reaches them. */
export interface SinkReceivers {
  /** Answers 200 to every POST; a GET answers `{posts, distinct}` (distinct X-Svc-Event-Id values). */
  webhookUrl: string;
  /** librdkafka's mock Kafka broker, topic svc-audit with 4 partitions. */
  kafkaBootstrap: string;
  /** nats-server with JetStream on file storage under `dir`. */
  natsUrl: string;
  stop(): void;
}

const WEBHOOK_RECEIVER = `let n=0;const ids=new Set();const s=require('node:http').createServer((q,r)=>{if(q.method==='GET')return r.end(JSON.stringify({posts:n,distinct:ids.size}));ids.add(q.headers['x-svc-event-id']);q.resume();q.on('end',()=>{n++;r.end('ok')})});s.keepAliveTimeout=60000;s.listen(0,'127.0.0.1',()=>console.log(s.address().port))`;

const firstLine = async (child: ChildProcess) =>
  String((await createInterface({ input: child.stdout! })[Symbol.asyncIterator]().next()).value);
const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });

/**
 * Starts the receivers of the sink benches and resolves once each accepts connections; `core` pins them
 * to one core (taskset), else they share the machine. `dir` holds the compiled mock broker and NATS's store.
 */
export async function startSinkReceivers(dir: string, core?: number): Promise<SinkReceivers> {
  const run = (cmd: string, args: string[]) =>
    core === undefined
      ? spawn(cmd, args, { stdio: ['pipe', 'pipe', 'ignore'] })
      : spawn('taskset', ['-c', String(core), cmd, ...args], { stdio: ['pipe', 'pipe', 'ignore'] });
  const receiver = run(process.execPath, ['-e', WEBHOOK_RECEIVER]);
  const webhookUrl = `http://127.0.0.1:${await firstLine(receiver)}/audit`;
  const mockBin = path.join(dir, 'kafka-mock-broker');
  execFileSync('gcc', ['-O2', '-o', mockBin, path.join(ROOT, 'scripts/kafka-mock/kafka-mock-broker.c'), '-lrdkafka']);
  const kafka = run(mockBin, ['1', 'svc-audit:4']);
  const kafkaBootstrap = (await firstLine(kafka)).replace(/^bootstrap /, '');
  const natsPort = await freePort();
  const nats = run('nats-server', ['-a', '127.0.0.1', '-p', String(natsPort), '-js', '-sd', path.join(dir, 'nats')]);
  for (let i = 0; ; i++) {
    try {
      await new Promise<void>((resolve, reject) => {
        const s = connect(natsPort, '127.0.0.1', () => {
          s.end();
          resolve();
        }).on('error', reject);
      });
      break;
    } catch (err) {
      if (i >= 100) throw new Error(`nats-server did not listen on ${natsPort}: ${(err as Error).message}`);
      await new Promise((r) => setTimeout(r, 50)); // nats-server starting; no event says when it listens
    }
  }
  return {
    webhookUrl,
    kafkaBootstrap,
    natsUrl: `nats://127.0.0.1:${natsPort}`,
    stop: () => {
      for (const child of [receiver, kafka, nats]) child.kill('SIGTERM');
    },
  };
}
