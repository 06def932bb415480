import path from 'node:path';
import t from 'tap';
import { startTestService, tempDir } from '../helpers/service.ts';
import { readFileSync } from 'node:fs';
import { kmipRequest, RawKmipClient, responseItems, startKmipService } from '../helpers/kmip.ts';
import { enumeration, K } from '../../plugins/doors/kmip/ttlv/index.ts';
import { makeTestPki } from '../helpers/tls-certs.ts';

t.test('kmip.enabled needs its certificate, key and client CA: the boot fails naming the setting', async (t) => {
  const pki = makeTestPki();
  const full = {
    SVC_KMIP_ENABLED: 'true',
    SVC_KMIP_PORT: '0',
    SVC_KMIP_TLS_CERT_FILE: pki.serverCertFile,
    SVC_KMIP_TLS_KEY_FILE: pki.serverKeyFile,
    SVC_KMIP_TLS_CLIENT_CA_FILE: pki.caFile,
  };
  const cases: Array<[string, Record<string, string>, RegExp]> = [
    [
      'no certificate',
      { SVC_KMIP_TLS_CERT_FILE: '' },
      /kmip\.tls\.certFile is required when kmip\.enabled is true[\s\S]*SVC_KMIP_TLS_CERT_FILE/,
    ],
    ['no key', { SVC_KMIP_TLS_KEY_FILE: '' }, /kmip\.tls\.keyFile is required/],
    ['no client CA', { SVC_KMIP_TLS_CLIENT_CA_FILE: '' }, /kmip\.tls\.clientCaFile is required/],
    [
      'an unreadable client CA',
      { SVC_KMIP_TLS_CLIENT_CA_FILE: path.join(pki.dir, 'missing.pem') },
      /kmip\.tls\.clientCaFile: cannot read .*missing\.pem \(ENOENT\)/,
    ],
    [
      "a key that is not the certificate's",
      { SVC_KMIP_TLS_KEY_FILE: pki.clientKeyFile },
      /kmip\.tls: the certificate, key and client CA do not make a TLS context/,
    ],
  ];
  for (const [what, change, message] of cases) {
    await t.rejects(startTestService({ ...full, ...change }, { dir: tempDir() }), { message }, what);
  }
  const svc = await startTestService({ ...full }, { dir: tempDir() });
  t.ok(
    svc.kernel.doors.find((d) => d.name === 'kmip'),
    'with all three it boots with the KMIP door',
  );
  await svc.stop();
  const off = await startTestService({}, { dir: tempDir() });
  t.notOk(
    off.kernel.doors.find((d) => d.name === 'kmip'),
    'kmip.enabled defaults to false',
  );
  await off.stop();
});

t.test(
  'stopping the service answers what is in flight and closes clients that keep their connection open',
  async (t) => {
    const kmip = await startKmipService();
    const client = await RawKmipClient.connect(
      kmip.port,
      readFileSync(kmip.pki.caFile),
      kmip.identity('lingering', '/CN=lingering'),
    );
    const answer = await client.request(
      kmipRequest(
        [1, 2],
        [
          {
            operation: K.Operation.Query,
            payload: [enumeration(K.Tag.QueryFunction, K.QueryFunction.QueryOperations)],
          },
        ],
      ),
    );
    t.match(responseItems(answer), [{ status: K.ResultStatus.Success }]);
    await kmip.stop(); // resolves although the client never closes its side
    t.ok(client.closed || client.socket.readableEnded, 'the door closed the connection');
    client.close();
  },
);
