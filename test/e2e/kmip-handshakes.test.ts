import { Socket } from 'node:net';
import t from 'tap';
import { pykmip, pykmipAvailable, startKmipService } from '../helpers/kmip.ts';
import { serverMissing } from '../helpers/test-server.ts';
import { until } from '../helpers/until.ts';

const IDLE = 300;
const HANDSHAKE_TIMEOUT_MS = 6000;

t.test(
  '300 idle TCP connections do not keep a PyKMIP client out, and are closed at the handshake deadline',
  async (t) => {
    if (!(await pykmipAvailable()))
      return serverMissing(t, 'python3-pykmip is not installed and could not be installed');
    // kmip.maxConnections stays at its default (256): fewer than the idle connections, which used to count against it.
    const kmip = await startKmipService({ SVC_KMIP_HANDSHAKE_TIMEOUT_MS: String(HANDSHAKE_TIMEOUT_MS) });
    t.teardown(() => kmip.stop());
    const billing = kmip.identity('billing', '/CN=billing');

    const idle = Array.from({ length: IDLE }, () => {
      const c = { socket: new Socket(), connected: false, closedAt: 0 };
      c.socket
        .on('connect', () => (c.connected = true))
        .on('close', () => (c.closedAt = Date.now()))
        .on('error', () => undefined);
      c.socket.connect(kmip.port, '127.0.0.1');
      return c;
    });
    t.teardown(() => {
      for (const c of idle) c.socket.destroy();
    });
    await until(() => idle.every((c) => c.connected), `${IDLE} TCP connections`);
    const connectedBy = Date.now();

    const [created] = await pykmip(
      kmip,
      billing,
      [{ op: 'create', algorithm: 'AES', length: 256, name: 'past-the-idle' }],
      '1.4',
    );
    t.match(created, { ok: String }, 'PyKMIP is served while the idle connections are held');
    const openWhenServed = idle.filter((c) => c.closedAt === 0).length;
    t.ok(
      openWhenServed > 256,
      `more idle connections than kmip.maxConnections were still open then (${openWhenServed})`,
    );

    await until(
      () => idle.every((c) => c.closedAt > 0),
      'the server to close every idle connection',
      HANDSHAKE_TIMEOUT_MS + 10_000,
    );
    const latest = Math.max(...idle.map((c) => c.closedAt));
    t.ok(
      latest - connectedBy <= HANDSHAKE_TIMEOUT_MS + 2000,
      `closed within the handshake timeout (the last ${latest - connectedBy} ms after all were open)`,
    );
    const [again] = await pykmip(kmip, billing, [{ op: 'locate', name: 'past-the-idle' }], '1.4');
    t.match(again, { ok: [String] }, 'and clients are served after');
  },
);
