import { request } from 'node:https';
import t from 'tap';
import { startTestService } from '../helpers/service.ts';
import { makeTestPki } from '../helpers/tls-certs.ts';

const pki = makeTestPki();

/** A tools/list over HTTPS, trusting only the test CA. */
function listOverTls(port: number, ca: string | Buffer): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        ca,
        agent: false,
        headers: {
          'X-Svc-User': 'alice',
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          'Content-Length': Buffer.byteLength(body),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

t.test("/mcp is served on the service's TLS listener, with its certificate", async (t) => {
  const svc = await startTestService({
    SVC_HTTP_TLS_CERT_FILE: pki.serverCertFile,
    SVC_HTTP_TLS_KEY_FILE: pki.serverKeyFile,
  });
  t.teardown(() => svc.stop());
  const port = svc.kernel.address!.port;
  const res = await listOverTls(port, pki.read(pki.caFile));
  t.equal(res.status, 200);
  t.ok(res.body.result.tools.some((tool: { name: string }) => tool.name === 'encrypt'));
  await t.rejects(
    listOverTls(port, pki.read(pki.strangerCertFile)),
    /self-signed|unable to verify|certificate/i,
    'a client that does not trust the CA refuses it',
  );
});
