import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { startTestService } from '../helpers/service.ts';
import { freePort } from '../helpers/test-server.ts';
import { makeTestPki } from '../helpers/tls-certs.ts';

// The image's HEALTHCHECK probe (deploy/container/healthcheck.mjs), run as the image runs it: exit 0
// when /healthz answers 200 on SVC_HTTP_PORT, over HTTPS when the listener has a certificate; 1 otherwise.
const PROBE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../deploy/container/healthcheck.mjs');

function probe(env: Record<string, string>): Promise<number> {
  return new Promise((resolve) =>
    execFile(process.execPath, [PROBE], { env: { PATH: process.env.PATH ?? '', ...env } }, (err) =>
      resolve(err ? Number(err.code) : 0),
    ),
  );
}

t.test(
  'healthy over HTTP and over HTTPS, unhealthy when nothing answers or it speaks the wrong protocol',
  async (t) => {
    const plain = await startTestService();
    t.teardown(() => plain.stop());
    t.equal(await probe({ SVC_HTTP_PORT: String(plain.kernel.address!.port) }), 0, 'HTTP listener: healthy');

    const pki = makeTestPki();
    const tls = await startTestService({
      SVC_HTTP_TLS_CERT_FILE: pki.serverCertFile,
      SVC_HTTP_TLS_KEY_FILE: pki.serverKeyFile,
    });
    t.teardown(() => tls.stop());
    const tlsPort = String(tls.kernel.address!.port);
    t.equal(
      await probe({ SVC_HTTP_PORT: tlsPort, SVC_HTTP_TLS_CERT_FILE: pki.serverCertFile }),
      0,
      'HTTPS listener: healthy',
    );
    t.equal(await probe({ SVC_HTTP_PORT: tlsPort }), 1, 'plain HTTP to an HTTPS listener: unhealthy');
    t.equal(await probe({ SVC_HTTP_PORT: String(await freePort()) }), 1, 'nothing listening: unhealthy');
  },
);
