import type { TLSSocket } from 'node:tls';
import t from 'tap';
import type { OperationRunner } from '../../../kernel/index.ts';
import { KmipDoor } from '../../../plugins/doors/kmip/kmip-door.ts';
import { bytes, encodeTtlv, K, text } from '../../../plugins/doors/kmip/ttlv/index.ts';
import { kmipRequest, RawKmipClient, responseItems } from '../../helpers/kmip.ts';
import { issueClientCertificate, makeTestPki } from '../../helpers/tls-certs.ts';

const T = K.Tag;
/** Far above a socket's write high-water mark: the answer cannot leave the door's memory in one go. */
const ANSWER_BYTES = 8 * 1024 * 1024;
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

t.test(
  'a client that does not read its answers: the door runs no further request while an answer is still buffered for it',
  async (t) => {
    const pki = makeTestPki();
    let door: KmipDoor;
    const bufferedWhenRun: number[] = [];
    const serverSockets = () => [
      ...(door as unknown as { connections: { sockets: Set<TLSSocket> } }).connections.sockets,
    ];
    // Stands in for the pipeline: every Encrypt answers a large ciphertext, so each answer outgrows the socket's
    // buffer.
    const runner = {
      run: async () => {
        bufferedWhenRun.push(serverSockets().reduce((sum, s) => sum + s.writableLength, 0));
        return {
          ciphertextBase64: Buffer.alloc(ANSWER_BYTES, 7).toString('base64'),
          ivBase64: Buffer.alloc(12).toString('base64'),
          tagBase64: Buffer.alloc(16).toString('base64'),
        };
      },
      list: () => [],
    } as unknown as OperationRunner;
    door = new KmipDoor(
      {
        host: '127.0.0.1',
        port: 0,
        certFile: pki.serverCertFile,
        keyFile: pki.serverKeyFile,
        clientCaFile: pki.caFile,
        maxConnections: 10,
        handshakeTimeoutMs: 10_000,
        maxPendingHandshakes: 16,
      },
      runner,
      silent,
      { now: () => new Date() },
    );
    await door.start();
    t.teardown(() => door.stop());
    const client = await RawKmipClient.connect(
      door.address()!.port,
      pki.read(pki.caFile),
      issueClientCertificate(pki, 'reader', '/CN=slow-reader'),
    );
    t.teardown(() => client.close());

    const encrypt = kmipRequest(
      [1, 2],
      [
        {
          operation: K.Operation.Encrypt,
          payload: [text(T.UniqueIdentifier, '00000000-0000-4000-8000-000000000000'), bytes(T.Data, Buffer.from('x'))],
        },
      ],
    );
    for (let i = 0; i < 3; i++) client.send(encodeTtlv(encrypt));
    for (let i = 0; i < 3; i++)
      t.match(responseItems(await client.next()), [{ status: K.ResultStatus.Success }], `answer ${i + 1}`);

    t.equal(bufferedWhenRun.length, 3, 'every request ran');
    t.same(bufferedWhenRun, [0, 0, 0], "each ran only once the answer before it had left the door's memory");
  },
);
