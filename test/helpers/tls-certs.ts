import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface TestPki {
  dir: string;
  caFile: string;
  serverCertFile: string;
  serverKeyFile: string;
  clientCertFile: string;
  clientKeyFile: string;
  /** A client certificate from a CA the service does not trust. */
  strangerCertFile: string;
  strangerKeyFile: string;
  /**
   * A server certificate with an RSA key (for 127.0.0.1), so RSA key exchange suites could be negotiated if offered.
   */
  rsaServerCertFile: string;
  rsaServerKeyFile: string;
  read(file: string): Buffer;
}

const openssl = (args: string[], cwd: string) =>
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });

function authority(cwd: string, name: string): void {
  openssl(
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-days',
      '2',
      '-subj',
      `/CN=${name}`,
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.pem`,
    ],
    cwd,
  );
}

function issued(cwd: string, ca: string, name: string, extensions: string, keyType: 'ec' | 'rsa' = 'ec'): void {
  writeFileSync(path.join(cwd, `${name}.ext`), extensions);
  const newKey = keyType === 'ec' ? ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'] : ['-newkey', 'rsa:2048'];
  openssl(['req', ...newKey, '-nodes', '-subj', `/CN=${name}`, '-keyout', `${name}.key`, '-out', `${name}.csr`], cwd);
  openssl(
    [
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      `${ca}.pem`,
      '-CAkey',
      `${ca}.key`,
      '-CAcreateserial',
      '-days',
      '2',
      '-extfile',
      `${name}.ext`,
      '-out',
      `${name}.pem`,
    ],
    cwd,
  );
}

/**
 * A throwaway PKI made with the openssl command line: a CA, a server certificate for 127.0.0.1 and localhost, client
 * certificates.
 */
export function makeTestPki(): TestPki {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-pki-'));
  authority(dir, 'ca');
  authority(dir, 'stranger-ca');
  issued(dir, 'ca', 'server', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  issued(dir, 'ca', 'rsa-server', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n', 'rsa');
  issued(dir, 'ca', 'client', 'extendedKeyUsage=clientAuth\n');
  issued(dir, 'stranger-ca', 'stranger', 'extendedKeyUsage=clientAuth\n');
  const at = (f: string) => path.join(dir, f);
  return {
    dir,
    caFile: at('ca.pem'),
    serverCertFile: at('server.pem'),
    serverKeyFile: at('server.key'),
    clientCertFile: at('client.pem'),
    clientKeyFile: at('client.key'),
    strangerCertFile: at('stranger.pem'),
    strangerKeyFile: at('stranger.key'),
    rsaServerCertFile: at('rsa-server.pem'),
    rsaServerKeyFile: at('rsa-server.key'),
    read: (file) => readFileSync(file),
  };
}

/** One more client certificate from the test PKI's CA, with the subject given (`/CN=billing/O=acme`). */
export function issueClientCertificate(
  pki: TestPki,
  name: string,
  subject: string,
): { certFile: string; keyFile: string } {
  const cwd = pki.dir;
  writeFileSync(path.join(cwd, `${name}.ext`), 'extendedKeyUsage=clientAuth\n');
  openssl(
    [
      'req',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-subj',
      subject,
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.csr`,
    ],
    cwd,
  );
  openssl(
    [
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-days',
      '2',
      '-extfile',
      `${name}.ext`,
      '-out',
      `${name}.pem`,
    ],
    cwd,
  );
  return { certFile: path.join(cwd, `${name}.pem`), keyFile: path.join(cwd, `${name}.key`) };
}
