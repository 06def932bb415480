import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { connect as natsConnect } from 'nats';
import { CONNECTIONS, machine, median, PINNED, ROOT, ROUNDS, SECONDS, start } from './lib/harness.ts';
import { pairedRounds, type Round } from './lib/paired.ts';
import { startSinkReceivers } from './lib/sink-receivers.ts';

/**
 * `npm run bench:audit-sinks`: the full chain with all three secondary audit sinks on (a webhook to a local
 * receiver, a Kafka-protocol log stream to librdkafka's mock broker, a NATS JetStream stream) against the
 * same chain with none, ABBA per round: encrypt 1 KiB and Ed25519 sign; then the same with the sinks on the
 * fan-out thread (audit.fanoutThread) against none. Afterwards it reads what the sinks
 * delivered and dead-lettered from /metrics, and counts at each receiver what arrived: webhook POSTs and
 * their distinct event ids, the topic's messages (its partitions' end offsets), the stream's messages,
 * each against the events the primary sink wrote. Writes docs/benchmarks-audit-sinks.md.
 */
const work = mkdtempSync(path.join(tmpdir(), 'svc-bench-sinks-'));
const receivers = await startSinkReceivers(work);
const { webhookUrl, kafkaBootstrap: bootstrap, natsUrl } = receivers;

const common = {
  SVC_HTTP_HOST: '127.0.0.1',
  SVC_HTTP_PORT: '0',
  SVC_JOURNAL_KIND: 'in-memory',
  SVC_AUDIT_KIND: 'stdout',
  SVC_DATA_DIR: work,
};
const sinks = {
  SVC_AUDIT_WEBHOOK_ENABLED: 'true',
  SVC_AUDIT_WEBHOOK_URL: webhookUrl,
  SVC_AUDIT_WEBHOOK_SECRET: 'bench-webhook-secret',
  SVC_AUDIT_LOGSTREAM_ENABLED: 'true',
  SVC_AUDIT_LOGSTREAM_BOOTSTRAP_SERVERS: bootstrap,
  SVC_AUDIT_MSGSTREAM_ENABLED: 'true',
  SVC_AUDIT_MSGSTREAM_SERVERS: natsUrl,
  SVC_AUDIT_MSGSTREAM_AUTO_CREATE_STREAM: 'true',
};
const loadBefore = loadavg()[0]!;
const off = await start(['app/main.ts'], common, path.join(work, 'off.jsonl'));
const on = await start(['app/main.ts'], { ...common, ...sinks }, path.join(work, 'on.jsonl'));
const threaded = await start(
  ['app/main.ts'],
  { ...common, ...sinks, SVC_AUDIT_FANOUT_THREAD: 'true' },
  path.join(work, 'threaded.jsonl'),
);
// The fan-out thread logs its thread id; pinned runs give it core 1 (with the load generator and the receivers), the
// request loop keeps core 0.
const tid = /"msg":"audit fan-out thread started".*?"tid":(\d+)/.exec(threaded.logged)?.[1];
if (PINNED && tid) execFileSync('taskset', ['-p', '-c', '1', tid], { stdio: 'ignore' });
try {
  const inLoop = await pairedRounds(
    { label: 'sinks off', url: off.url, pid: off.child.pid },
    { label: 'sinks on', url: on.url, pid: on.child.pid },
  );
  const inThread = await pairedRounds(
    { label: 'sinks off', url: off.url, pid: off.child.pid },
    { label: 'sinks on, fan-out thread', url: threaded.url, pid: threaded.child.pid },
  );
  const services = { on: on.url, threaded: threaded.url };
  // Let the queues drain, then read what each sink did.
  const metrics: Record<string, string> = {};
  for (const [name, url] of Object.entries(services)) {
    for (let i = 0; i < 600; i++) {
      metrics[name] = await (await fetch(`${url}/metrics`)).text();
      if (![...metrics[name]!.matchAll(/svc_audit_sink_queue_depth\{sink="[^"]+"\} (\d+)/g)].some((m) => m[1] !== '0'))
        break;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const count = (service: keyof typeof services, sink: string, result: string) =>
    Number(
      new RegExp(`svc_audit_sink_events_total\\{sink="${sink}",result="${result}"\\} (\\d+)`).exec(
        metrics[service]!,
      )?.[1] ?? 0,
    );
  // What the receivers hold, against what the two nodes with sinks wrote to their primary sinks (one JSON line per
  // event).
  const lines = (file: string) => countLines(path.join(work, file));
  const written = { on: lines('on.jsonl'), threaded: lines('threaded.jsonl') };
  const webhook = JSON.parse(await (await fetch(webhookUrl)).text()) as { posts: number; distinct: number };
  const admin = new Kafka({ clientId: 'bench-count', brokers: [bootstrap], logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  // The end offsets: every message ever appended (the mock broker drops old segments, so the start offsets move).
  const topicMessages = (await admin.fetchTopicOffsets('svc-audit')).reduce((sum, p) => sum + Number(p.high), 0);
  await admin.disconnect();
  const nc = await natsConnect({ servers: natsUrl });
  const streamMessages = (await (await nc.jetstreamManager()).streams.info('SVC_AUDIT')).state.messages;
  await nc.close();
  const atReceiver = {
    webhook: [webhook.posts, webhook.distinct],
    'log-stream': [topicMessages, topicMessages],
    'message-stream': [streamMessages, streamMessages],
  };
  const SINKS = ['webhook', 'log-stream', 'message-stream'] as const;
  const SERVICES = ['on', 'threaded'] as const;
  // Per sink: each service's events were delivered or dead-lettered, none lost; the receiver holds every delivered one,
  // once.
  const delivered = (sink: string) => count('on', sink, 'delivered') + count('threaded', sink, 'delivered');
  const noneLost = (sink: string) =>
    SERVICES.every((v) => count(v, sink, 'delivered') + count(v, sink, 'dead_lettered') === written[v]);
  const onceEach = (sink: (typeof SINKS)[number]) =>
    atReceiver[sink][0] === delivered(sink) && atReceiver[sink][1] === delivered(sink);
  const cellsOf = (v: (typeof SERVICES)[number], sink: string) =>
    `${count(v, sink, 'delivered')} / ${count(v, sink, 'retried')} / ${count(v, sink, 'dead_lettered')}`;
  const sinkRows = SINKS.map(
    (sink) =>
      `| ${sink} | ${cellsOf('on', sink)} | ${cellsOf('threaded', sink)} | ${atReceiver[sink][0]} (${atReceiver[sink][1]} distinct) | ${noneLost(sink) ? 'yes' : 'no'} | ${onceEach(sink) ? 'yes' : 'no'} |`,
  );
  const keptUp = (v: (typeof SERVICES)[number]) => SINKS.every((sink) => count(v, sink, 'dead_lettered') === 0);
  const rps = (r: Round['encrypt']) => r.b.rps / r.a.rps;
  const cpu = (r: Round['encrypt']) => r.b.perCpuSecond / r.a.perCpuSecond;
  const loop = (r: Round['encrypt']) => r.b.perLoopCpuSecond / r.a.perLoopCpuSecond;
  const cells = (r: Round['encrypt']) =>
    `${r.a.rps.toFixed(0)} | ${r.b.rps.toFixed(0)} | ${rps(r).toFixed(3)} | ${cpu(r).toFixed(3)} | ${loop(r).toFixed(3)}`;
  const med = (rounds: Round[], f: (r: Round['encrypt']) => number, what: 'encrypt' | 'sign') =>
    median(rounds.map((r) => f(r[what]))).toFixed(3);
  const table = (rounds: Round[]) => [
    '| round | encrypt off | encrypt on | req/s ratio | per-CPU ratio | ' +
      'request-loop per-CPU ratio | sign off | sign on | req/s ratio | ' +
      'per-CPU ratio | request-loop per-CPU ratio |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...rounds.map((r, i) => `| ${i + 1} | ${cells(r.encrypt)} | ${cells(r.sign)} |`),
    '',
    `Median on/off: encrypt **${med(rounds, rps, 'encrypt')}** (per CPU s ${med(rounds, cpu, 'encrypt')}, per request-loop CPU s **${med(rounds, loop, 'encrypt')}**), ` +
      `Ed25519 sign **${med(rounds, rps, 'sign')}** (per CPU s ${med(rounds, cpu, 'sign')}, per request-loop CPU s ${med(rounds, loop, 'sign')}).`,
  ];
  const doc = [
    '# Benchmarks: cost of the secondary audit sinks',
    '',
    '<!-- Written by `npm run bench:audit-sinks`. -->',
    '',
    `Run on ${machine()}, ${cpus().length} cores; autocannon ${CONNECTIONS} connections, ${SECONDS} s per run, ${ROUNDS} rounds.`,
    'Three services run the full chain with the stdout primary sink. "On" ' +
      'adds all three secondary sinks with their default',
    "settings: a webhook to a local receiver, a log stream to librdkafka's mock Kafka broker, a NATS JetStream stream",
    '(nats-server, file storage); once on the request loop (the default), ' +
      'once on the fan-out thread (audit.fanoutThread).',
    'Each round runs off, on, on, off per scenario; ratios are on/off, per ' +
      'request, per CPU second of the server process',
    "(its sinks' work included; the receivers are other processes) and per CPU second of its main thread alone (the",
    `request loop).${PINNED ? ' The servers run on core 0; the fan-out thread is moved to core 1, ' + 'which it shares with autocannon and the receivers.' : ''}`,
    '',
    '## Sinks on the request loop (the default)',
    '',
    ...table(inLoop),
    '',
    '## Sinks on the fan-out thread',
    '',
    ...table(inThread),
    '',
    'Goal: encrypt with the sinks on at least 0.85 of sinks off.',
    '',
    `What the sinks did with the events of the two "on" services (${written.on} on the request loop, ${written.threaded} on the fan-out thread),`,
    'from their /metrics after the queues drained, and what each receiver ' +
      'holds (webhook POSTs and their distinct event ids, the',
    "topic's messages, the stream's messages):",
    '',
    '| sink | on the request loop: delivered / retried / dead-lettered | on ' +
      'the fan-out thread: delivered / retried / dead-lettered | at the ' +
      'receiver | none lost (delivered + dead-lettered = written, per ' +
      'service) | each delivered event at the receiver once |',
    '|---|---|---|---|---|---|',
    ...sinkRows,
    '',
    `Load average ${loadBefore.toFixed(1)} before the run, ${loadavg()[0]!.toFixed(1)} after.`,
    '',
    '## Where the time goes',
    '',
    'Every event costs CPU in each sink. ' +
      '[benchmarks-sink-cost.md](benchmarks-sink-cost.md) measures it per ' +
      'event and sink',
    '(`npm run bench:sink-cost`): at 10,000 events a second about 31 us for the webhook (one signed POST each, four',
    'pipelined on a connection), 31 us for the log stream (kafkajs, batches) and 14 us for the message stream (batches',
    'acknowledged as a whole), some 77 us together, against some 80 us for an encrypt call itself.',
    '',
    '- On the request loop that CPU comes out of the requests: on one core ' +
      'on/off is bound to about 80 / (80 + 77), near',
    '  0.5, as the first table shows.',
    '- On the fan-out thread the request loop only serialises each event and posts the texts in batches: the',
    '  request-loop per-CPU ratio of the second table is what a node reaches when the thread has a core of its own.',
    '  Here the thread needs about a core at the "off" rate and shares core 1 with autocannon and the three receivers,',
    '  which need about as much again: at full load it falls behind, and what it cannot take within its queue goes to',
    '  the dead letter. Both at once, 0.85 in req/s and nothing dead-lettered, takes a core for the sinks the load',
    '  generator and the receivers do not use: a machine with at least four cores.',
    ...SERVICES.map(
      (v) =>
        `- ${v === 'on' ? 'On the request loop' : 'On the fan-out thread'} the sinks ${keptUp(v) ? 'kept up: no event dead-lettered.' : 'did not keep up: some events were dead-lettered (the table above; ' + '`replay-dead-letters` delivers them later).'}`,
    ),
  ].join('\n');
  writeFileSync(path.join(ROOT, 'docs/benchmarks-audit-sinks.md'), doc);
  process.stderr.write(doc);
} finally {
  on.child.kill('SIGTERM');
  threaded.child.kill('SIGTERM');
  off.child.kill('SIGTERM');
  receivers.stop();
}

/** Lines in a file read in chunks: the primary sinks' files outgrow the longest string V8 makes. */
function countLines(file: string): number {
  const fd = openSync(file, 'r');
  const chunk = Buffer.alloc(1 << 20);
  let lines = 0;
  for (let n: number; (n = readSync(fd, chunk)) > 0; )
    for (let i = chunk.indexOf(10); i !== -1 && i < n; i = chunk.indexOf(10, i + 1)) lines++;
  closeSync(fd);
  return lines;
}
