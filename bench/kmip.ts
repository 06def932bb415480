import { mkdtempSync, readFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { titledDoc, writeGeneratedBlock } from './lib/generated-doc.ts';
import { connect, type TLSSocket } from 'node:tls';
import { bytes, child, decodeTtlv, encodeTtlv, Framer, K, text } from '../plugins/doors/kmip/ttlv/index.ts';
import { freePort } from '../test/helpers/test-server.ts';
import { kmipRequest } from '../test/helpers/kmip.ts';
import { issueClientCertificate, makeTestPki } from '../test/helpers/tls-certs.ts';
import {
  activeKey,
  CONNECTIONS,
  cpuSeconds,
  load,
  machine,
  median,
  PINNED,
  ROOT,
  ROUNDS,
  SECONDS,
  start,
  type Row,
} from './lib/harness.ts';
import { PLAINTEXT } from './lib/paired.ts';

/**
 * `npm run bench:kmip`: the same encrypt of 1 KiB on one service, over REST (POST /v1/keys/:id/encrypt,
 * autocannon) and through the KMIP door (an Encrypt request over mutual TLS, from a load generator built
 * on the door's own codec), ABBA per round; requests per CPU second of the server process. Every answer
 * is checked (a KMIP failure is a Response Message with Result Status Operation Failed). Writes the
 * generated part of docs/benchmarks-kmip.md.
 */
const work = mkdtempSync(path.join(tmpdir(), 'svc-bench-kmip-'));
const pki = makeTestPki();
const identity = issueClientCertificate(pki, 'bench', '/CN=bench');
const kmipPort = await freePort();
const SERVICE_ENV = {
  SVC_HTTP_HOST: '127.0.0.1',
  SVC_HTTP_PORT: '0',
  SVC_JOURNAL_KIND: 'in-memory',
  SVC_AUDIT_KIND: 'stdout',
  SVC_KMIP_ENABLED: 'true',
  SVC_KMIP_PORT: String(kmipPort),
  SVC_KMIP_TLS_CERT_FILE: pki.serverCertFile,
  SVC_KMIP_TLS_KEY_FILE: pki.serverKeyFile,
  SVC_KMIP_TLS_CLIENT_CA_FILE: pki.caFile,
};
const svc = await start(['app/main.ts'], SERVICE_ENV, path.join(work, 'audit.jsonl'));
const pid = svc.child.pid!;
const startLoad = loadavg()[0]!;

const T = K.Tag;
const plaintext = Buffer.from(PLAINTEXT.plaintextBase64, 'base64');

/** One KMIP connection that sends the same Encrypt again as soon as its answer arrives, and checks each answer. */
function kmipLoop(
  request: Buffer,
  until: number,
  stats: { ok: number; errors: number; latencies: number[] },
): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket: TLSSocket = connect(
      {
        host: '127.0.0.1',
        port: kmipPort,
        ca: readFileSync(pki.caFile),
        cert: readFileSync(identity.certFile),
        key: readFileSync(identity.keyFile),
        servername: 'localhost',
      },
      send,
    );
    const framer = new Framer();
    let sentAt = 0;
    function send(): void {
      if (Date.now() >= until) {
        socket.end();
        resolve();
        return;
      }
      sentAt = performance.now();
      socket.write(request);
    }
    socket.on('data', (chunk: Buffer) => {
      for (const frame of framer.push(chunk)) {
        const item = child(decodeTtlv(frame), T.BatchItem);
        const status = child(item, T.ResultStatus);
        const data = child(child(item, T.ResponsePayload), T.Data);
        if (status?.type === 'Enumeration' && status.value === K.ResultStatus.Success && data?.type === 'ByteString')
          stats.ok++;
        else stats.errors++;
        stats.latencies.push(performance.now() - sentAt);
        send();
      }
    });
    socket.on('error', reject);
  });
}

async function kmipLoad(name: string, keyId: string, seconds = SECONDS): Promise<Row> {
  const request = encodeTtlv(
    kmipRequest(
      [1, 4],
      [{ operation: K.Operation.Encrypt, payload: [text(T.UniqueIdentifier, keyId), bytes(T.Data, plaintext)] }],
    ),
  );
  const stats = { ok: 0, errors: 0, latencies: [] as number[] };
  const cpuBefore = cpuSeconds(pid);
  const until = Date.now() + seconds * 1000;
  await Promise.all(Array.from({ length: CONNECTIONS }, () => kmipLoop(request, until, stats)));
  const cpu = cpuSeconds(pid) - cpuBefore;
  const sorted = stats.latencies.sort((a, b) => a - b);
  const pct = (p: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0);
  const row = {
    name,
    rps: (stats.ok + stats.errors) / seconds,
    p50: pct(0.5),
    p99: pct(0.99),
    errors: stats.errors,
    perCpuSecond: cpu > 0 ? (stats.ok + stats.errors) / cpu : 0,
  };
  process.stderr.write(
    `${name.padEnd(40)} ${row.rps.toFixed(0).padStart(7)} req/s  ${row.perCpuSecond.toFixed(0).padStart(6)} req/CPU-s  p50 ${row.p50} ms  p99 ${row.p99} ms  errors ${row.errors}\n`,
  );
  return row;
}

type Side = { rps: number; perCpuSecond: number; errors: number; p50: number; p99: number };
const rounds: Array<{ rest: Side; kmip: Side }> = [];
const restOk = (body: string) => body.includes('"ciphertextBase64"');
try {
  const keyId = await activeKey(svc.url, { algorithm: 'AES' });
  const restUrl = `${svc.url}/v1/keys/${keyId}/encrypt`;
  const rest = (seconds = SECONDS) =>
    load('encrypt 1 KiB, REST', restUrl, PLAINTEXT, seconds, pid, { verifyBody: restOk });
  const kmip = (seconds = SECONDS) => kmipLoad('encrypt 1 KiB, KMIP Encrypt', keyId, seconds);
  const check = await kmip(1);
  if (check.errors > 0) throw new Error('the KMIP door did not answer Encrypt with a ciphertext');
  await rest(3); // warm-up: both doors' hot paths optimised before anything is measured
  await kmip(3);
  for (let round = 1; round <= ROUNDS; round++) {
    process.stderr.write(`round ${round} of ${ROUNDS}\n`);
    const r1 = await rest();
    const k1 = await kmip();
    const k2 = await kmip();
    const r2 = await rest();
    rounds.push({ rest: mean(r1, r2), kmip: mean(k1, k2) });
  }
} finally {
  svc.child.kill('SIGTERM');
}

function mean(a: Row, b: Row): Side {
  return {
    rps: (a.rps + b.rps) / 2,
    perCpuSecond: (a.perCpuSecond + b.perCpuSecond) / 2,
    errors: a.errors + b.errors,
    p50: Math.max(a.p50, b.p50),
    p99: Math.max(a.p99, b.p99),
  };
}

/** KMIP Encrypts per CPU second over REST encrypts per CPU second: above 1, KMIP costs the server less per call. */
const ratio = (r: { rest: Side; kmip: Side }) => r.kmip.perCpuSecond / r.rest.perCpuSecond;
const medianRatio = median(rounds.map(ratio));
const errors = rounds.reduce((n, r) => n + r.rest.errors + r.kmip.errors, 0);
const generated = [
  '<!-- generated:start (by `npm run bench:kmip`; the text outside these markers is kept) -->',
  `Last run: ${machine()}, ${cpus().length} cores (${cpus()[0]?.model.trim()}), load average ${startLoad.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end.`,
  `${CONNECTIONS} connections on each side, ${SECONDS} s per run, ${ROUNDS} rounds of REST, KMIP, KMIP, REST on one service (dev auth, in-memory journal,`,
  `stdout audit to a file, the full chain). ${PINNED ? 'The service is pinned to core 0 (taskset), the load generators to core 1.' : 'Service and load generators share the cores (taskset was not available).'}`,
  'REST: autocannon, plain HTTP, `POST /v1/keys/:id/encrypt` with 1 KiB. ' +
    'KMIP: 1.4 Encrypt requests of the same 1 KiB over mutual TLS (TLS 1.3, ' +
    'one connection per',
  'client, the next request sent when the answer arrives), from a load ' +
    "generator on the door's own TTLV codec. Every answer of both is " +
    'checked for a ciphertext.',
  '',
  '| round | REST req/s | KMIP req/s | REST req per CPU s | KMIP req per ' +
    'CPU s | KMIP / REST per CPU s | KMIP p50 / p99 ms | REST p50 / p99 ms |',
  '|---|---|---|---|---|---|---|---|',
  ...rounds.map(
    (r, i) =>
      `| ${i + 1} | ${r.rest.rps.toFixed(0)} | ${r.kmip.rps.toFixed(0)} | ${r.rest.perCpuSecond.toFixed(0)} | ${r.kmip.perCpuSecond.toFixed(0)} | ${ratio(r).toFixed(3)} | ${r.kmip.p50} / ${r.kmip.p99} | ${r.rest.p50} / ${r.rest.p99} |`,
  ),
  '',
  `Median KMIP Encrypts per CPU second over REST encrypts per CPU second: **${medianRatio.toFixed(3)}**. Errors: ${errors}.`,
  '<!-- generated:end -->',
].join('\n');
writeGeneratedBlock(
  path.join(ROOT, 'docs/benchmarks-kmip.md'),
  generated,
  titledDoc('Benchmark: the KMIP door against REST'),
);
if (errors > 0) process.exitCode = 1;
