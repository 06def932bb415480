import { Socket } from 'node:net';
import t, { type Test } from 'tap';
import type { OperationRunner } from '../../../kernel/index.ts';
import type { KmipSettings } from '../../../plugins/doors/kmip/config.ts';
import { KmipDoor } from '../../../plugins/doors/kmip/kmip-door.ts';
import { encodeTtlv, K } from '../../../plugins/doors/kmip/ttlv/index.ts';
import { kmipRequest, RawKmipClient, responseItems } from '../../helpers/kmip.ts';
import { issueClientCertificate, makeTestPki } from '../../helpers/tls-certs.ts';
import { until } from '../../helpers/until.ts';

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
const runner = { run: async () => ({}), list: () => [] } as unknown as OperationRunner;
const pki = makeTestPki();
const identity = issueClientCertificate(pki, 'client', '/CN=billing');

async function door(
  t: Test,
  limits: Pick<KmipSettings, 'maxConnections' | 'handshakeTimeoutMs' | 'maxPendingHandshakes'>,
): Promise<number> {
  const d = new KmipDoor(
    {
      host: '127.0.0.1',
      port: 0,
      certFile: pki.serverCertFile,
      keyFile: pki.serverKeyFile,
      clientCaFile: pki.caFile,
      ...limits,
    },
    runner,
    silent,
    { now: () => new Date() },
  );
  await d.start();
  t.teardown(() => d.stop());
  return d.address()!.port;
}

/** A TCP connection that never starts its handshake; `closed` turns true when the server closes it. */
function idle(port: number): { socket: Socket; closed: boolean } {
  const c = { socket: new Socket(), closed: false };
  c.socket
    .on('close', () => (c.closed = true))
    .on('error', () => undefined)
    .connect(port, '127.0.0.1');
  return c;
}

async function served(port: number): Promise<boolean> {
  const client = await RawKmipClient.connect(port, pki.read(pki.caFile), identity).catch(() => undefined);
  if (!client) return false;
  try {
    client.send(encodeTtlv(kmipRequest([1, 4], [{ operation: K.Operation.DiscoverVersions, payload: [] }])));
    const answer = await client.next();
    return answer !== undefined && responseItems(answer)[0]?.status === K.ResultStatus.Success;
  } finally {
    client.close();
  }
}

t.test(
  "pending handshakes never take a certified client's place: past their own bound the oldest is closed",
  async (t) => {
    const port = await door(t, { maxConnections: 1, handshakeTimeoutMs: 60_000, maxPendingHandshakes: 3 });
    const stalled = Array.from({ length: 5 }, () => idle(port));
    t.teardown(() => {
      for (const s of stalled) s.socket.destroy();
    });
    await until(() => stalled[0]!.closed && stalled[1]!.closed, 'the two oldest pending handshakes to be closed');
    t.same(
      stalled.map((s) => s.closed),
      [true, true, false, false, false],
      'the three newest still wait',
    );
    t.ok(await served(port), 'a certified client is served while handshakes are pending');
    t.ok(stalled.slice(2).filter((s) => s.closed).length <= 1, 'its handshake closed at most the oldest pending one');
  },
);

t.test(
  'kmip.maxConnections bounds certified connections only: one past it is closed, and served once one ends',
  async (t) => {
    const port = await door(t, { maxConnections: 1, handshakeTimeoutMs: 60_000, maxPendingHandshakes: 8 });
    const holder = await RawKmipClient.connect(port, pki.read(pki.caFile), identity);
    holder.send(encodeTtlv(kmipRequest([1, 4], [{ operation: K.Operation.DiscoverVersions, payload: [] }])));
    t.match(
      responseItems(await holder.next()),
      [{ status: K.ResultStatus.Success }],
      'the first certified client is served',
    );
    t.notOk(await served(port), 'a second certified client is closed while the first holds the one place');
    holder.close();
    await until(() => served(port), 'a certified place to free up');
    t.pass('served once the first ended');
  },
);

t.test(
  'a handshake not finished by kmip.handshakeTimeoutMs is closed, however slowly the client keeps sending',
  async (t) => {
    const port = await door(t, { maxConnections: 4, handshakeTimeoutMs: 500, maxPendingHandshakes: 8 });
    const started = Date.now();
    const silentOne = idle(port);
    const trickler = idle(port);
    // One byte of a ClientHello record header every 100 ms: an idle-based timer would never fire.
    const hello = Buffer.from('1603010200', 'hex');
    let sent = 0;
    const drip = setInterval(() => sent < hello.length && trickler.socket.write(hello.subarray(sent, ++sent)), 100);
    t.teardown(() => clearInterval(drip));
    await until(() => silentOne.closed && trickler.closed, 'both to be closed at the deadline', 5_000);
    t.ok(Date.now() - started >= 450, 'not before the deadline');
    t.ok(await served(port), 'certified clients are served as before');
  },
);
