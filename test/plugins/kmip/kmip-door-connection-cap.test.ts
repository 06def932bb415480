import { Socket } from 'node:net';
import type { Server } from 'node:tls';
import t from 'tap';
import type { OperationRunner } from '../../../kernel/index.ts';
import { KmipDoor } from '../../../plugins/kmip/kmip-door.ts';
import { encodeTtlv, K } from '../../../plugins/kmip/ttlv/index.ts';
import { kmipRequest, RawKmipClient, responseItems } from '../../helpers/kmip.ts';
import { issueClientCertificate, makeTestPki } from '../../helpers/tls-certs.ts';
import { until } from '../../helpers/until.ts';

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

t.test('the KMIP listener holds at most kmip.maxConnections connections: a client past the cap is refused, and served once one ends', async (t) => {
  const pki = makeTestPki();
  const runner = { run: async () => ({}), list: () => [] } as unknown as OperationRunner;
  const door = new KmipDoor({ host: '127.0.0.1', port: 0, certFile: pki.serverCertFile, keyFile: pki.serverKeyFile, clientCaFile: pki.caFile, maxConnections: 2 }, runner, silent, { now: () => new Date() });
  await door.start();
  t.teardown(() => door.stop());
  const port = door.address()!.port;
  const connections = () => new Promise<number>((resolve) => (door as unknown as { server: Server }).server.getConnections((_err, n) => resolve(n)));

  // Two clients that connect and never start their handshake hold both places.
  const stalled = [new Socket(), new Socket()];
  t.teardown(() => stalled.forEach((s) => s.destroy()));
  for (const s of stalled) s.connect(port, '127.0.0.1');
  await until(async () => (await connections()) === 2, 'the listener to hold both');

  const identity = issueClientCertificate(pki, 'client', '/CN=billing');
  const refused = await RawKmipClient.connect(port, pki.read(pki.caFile), identity).then((c) => (c.close(), 'connected'), (err: Error) => err.message);
  t.not(refused, 'connected', `a third client is refused while two connections are held (${refused})`);

  stalled[0]!.destroy();
  await until(async () => (await connections()) < 2, 'a place to free up');
  const client = await RawKmipClient.connect(port, pki.read(pki.caFile), identity);
  t.teardown(() => client.close());
  client.send(encodeTtlv(kmipRequest([1, 4], [{ operation: K.Operation.DiscoverVersions, payload: [] }])));
  t.match(responseItems(await client.next()), [{ status: K.ResultStatus.Success }], 'once one ended, a client is served');
});
