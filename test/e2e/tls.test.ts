import { copyFileSync, mkdtempSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect } from 'node:tls';
import t, { type Test } from 'tap';
import { SvcClient } from '../../clients/sdk/index.ts';
import { cliEnv, svc } from '../helpers/cli.ts';
import { spawnService, type ServiceProcess } from '../helpers/process.ts';
import { makeTestPki } from '../helpers/tls-certs.ts';

const pki = makeTestPki();

function started(t: Test, env: Record<string, string>): ServiceProcess {
  const service = spawnService({ SVC_HTTP_HOST: '127.0.0.1', SVC_HTTP_PORT: '0', ...env });
  t.teardown(() => service.child.kill('SIGKILL'));
  return service;
}

/** GET over HTTPS; resolves with the status and the peer certificate's serial, rejects on a TLS or socket error. */
function httpsGet(port: number, extra: RequestOptions = {}): Promise<{ status: number; serial: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      { host: '127.0.0.1', port, path: '/healthz', ca: pki.read(pki.caFile), agent: false, ...extra },
      (res) => {
        const serial = (res.socket as import('node:tls').TLSSocket).getPeerCertificate().serialNumber;
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode!, serial }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

t.test('with a certificate and key the service speaks HTTPS only, TLS 1.2 or newer', async (t) => {
  const service = started(t, { SVC_HTTP_TLS_CERT_FILE: pki.serverCertFile, SVC_HTTP_TLS_KEY_FILE: pki.serverKeyFile });
  const port = await service.listening;
  t.match(service.stderr(), /"msg":"listening","protocol":"https"/);
  t.equal((await httpsGet(port)).status, 200, 'HTTPS answers with the certificate the CA signed');
  await t.rejects(
    httpsGet(port, { ca: pki.read(pki.strangerCertFile) }),
    /self-signed|unable to verify|certificate/i,
    'a client that does not trust the CA refuses the server',
  );

  const plain = await new Promise<string>((resolve) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: '/healthz' }, (res) =>
      resolve(`answered ${res.statusCode}`),
    );
    req.on('error', (err) => resolve(`refused: ${(err as NodeJS.ErrnoException).code}`));
    req.end();
  });
  t.match(plain, /^refused/, 'plain HTTP gets no answer on the TLS port');

  const oldTls = await new Promise<string>((resolve) => {
    const socket = connect(
      {
        host: '127.0.0.1',
        port,
        ca: pki.read(pki.caFile),
        minVersion: 'TLSv1',
        maxVersion: 'TLSv1.1',
        ciphers: 'DEFAULT@SECLEVEL=0',
      },
      () => {
        resolve(`connected with ${socket.getProtocol()}`);
        socket.end();
      },
    );
    socket.on('error', (err) => resolve(`refused: ${err.message}`));
  });
  t.match(oldTls, /^refused/, 'TLS 1.1 is refused');

  const client = new SvcClient({
    server: `https://127.0.0.1:${port}`,
    credentials: { user: 'alice' },
    tls: { ca: pki.read(pki.caFile) },
  });
  const key = await client.createKey({ name: 'over-tls', algorithm: 'AES' });
  await client.activateKey(key.id);
  const sealed = await client.encrypt(key.id, new TextEncoder().encode('secret over https'));
  t.equal(
    new TextDecoder().decode((await client.decrypt(key.id, sealed.ciphertext)).plaintext),
    'secret over https',
    'the SDK round-trips over HTTPS',
  );

  const home = mkdtempSync(path.join(tmpdir(), 'svc-cli-'));
  const server = `https://127.0.0.1:${port}`;
  const shown = await svc(
    ['--server', server, '--ca-file', pki.caFile, '--user', 'alice', 'keys', 'get', key.id, '--json'],
    cliEnv(home),
  );
  t.equal(shown.code, 0, shown.stderr);
  t.match(JSON.parse(shown.out), { id: key.id, state: 'Active' }, 'the CLI reads a key over HTTPS with --ca-file');
  const viaEnv = await svc(
    ['--server', server, '--user', 'alice', 'keys', 'get', key.id],
    cliEnv(home, { SVC_CA_FILE: pki.caFile }),
  );
  t.equal(viaEnv.code, 0, `SVC_CA_FILE works too: ${viaEnv.stderr}`);
  const untrusted = await svc(['--server', server, '--user', 'alice', 'keys', 'get', key.id], cliEnv(home));
  t.equal(untrusted.code, 1, 'without the CA the CLI fails as a network error');
  t.match(untrusted.stderr, /certificate|SELF_SIGNED|UNABLE_TO_VERIFY/i);
});

t.test('SIGHUP picks up renewed certificate files for new connections', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-tls-'));
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  copyFileSync(pki.serverCertFile, cert);
  copyFileSync(pki.serverKeyFile, key);
  const service = started(t, { SVC_HTTP_TLS_CERT_FILE: cert, SVC_HTTP_TLS_KEY_FILE: key });
  const port = await service.listening;
  const before = (await httpsGet(port)).serial;
  const renewed = makeTestPki();
  copyFileSync(renewed.serverCertFile, cert);
  copyFileSync(renewed.serverKeyFile, key);
  service.child.kill('SIGHUP');
  await new Promise<void>((resolve) => {
    const check = () => (/TLS certificate files reloaded/.test(service.stderr()) ? resolve() : setTimeout(check, 20));
    check();
  });
  const after = await httpsGet(port, { ca: renewed.read(renewed.caFile) });
  t.equal(after.status, 200);
  t.not(after.serial, before, 'a new connection gets the renewed certificate');
});

t.test('mutual TLS: only a client certificate from the configured CA gets in', async (t) => {
  const service = started(t, {
    SVC_HTTP_TLS_CERT_FILE: pki.serverCertFile,
    SVC_HTTP_TLS_KEY_FILE: pki.serverKeyFile,
    SVC_HTTP_TLS_CLIENT_CA_FILE: pki.caFile,
  });
  const port = await service.listening;
  await t.rejects(httpsGet(port), 'no client certificate: the handshake fails');
  await t.rejects(
    httpsGet(port, { cert: pki.read(pki.strangerCertFile), key: pki.read(pki.strangerKeyFile) }),
    'a certificate from another CA: the handshake fails',
  );
  t.equal(
    (await httpsGet(port, { cert: pki.read(pki.clientCertFile), key: pki.read(pki.clientKeyFile) })).status,
    200,
    'the right client certificate gets an answer',
  );

  const client = new SvcClient({
    server: `https://127.0.0.1:${port}`,
    credentials: { user: 'alice' },
    tls: { ca: pki.read(pki.caFile), cert: pki.read(pki.clientCertFile), key: pki.read(pki.clientKeyFile) },
  });
  const created = await client.createKey({ name: 'mtls', algorithm: 'EdDSA' });
  t.equal(created.state, 'PreActive', 'the SDK works with a client certificate');
  const home = mkdtempSync(path.join(tmpdir(), 'svc-cli-'));
  const args = [
    '--server',
    `https://127.0.0.1:${port}`,
    '--ca-file',
    pki.caFile,
    '--user',
    'alice',
    'keys',
    'get',
    created.id,
  ];
  const withCert = await svc(
    [...args.slice(0, 4), '--cert-file', pki.clientCertFile, '--key-file', pki.clientKeyFile, ...args.slice(4)],
    cliEnv(home),
  );
  t.equal(withCert.code, 0, withCert.stderr);
  t.match(withCert.out, /mtls/);
  // Several at once: the service drops a TLS 1.3 connection without a client certificate right after the
  // client's handshake ends, and a client that misses that drop hangs or exits without a word.
  const without = await Promise.all(Array.from({ length: 8 }, () => svc(args, cliEnv(home))));
  t.same(
    without.map((r) => r.code),
    without.map(() => 1),
    'the CLI without a client certificate is turned away, every time',
  );
  t.ok(
    without.every((r) => /NetworkError/.test(r.stderr)),
    'as a network error',
  );
  const halfPair = await svc([...args, '--cert-file', pki.clientCertFile], cliEnv(home));
  t.equal(halfPair.code, 2, 'a certificate without its key is a usage error');
});

t.test(
  'preflight: plain HTTP on an exposed bind is the http.tls finding, and broken TLS settings stop the boot',
  async (t) => {
    const exposedPlain = spawnService({ SVC_HTTP_HOST: '0.0.0.0', SVC_HTTP_PORT: '0' });
    t.teardown(() => exposedPlain.child.kill('SIGKILL'));
    await exposedPlain.listening;
    t.match(exposedPlain.stderr(), /\[WARN\] http\.tls: plain HTTP/, 'warn mode names the finding and boots');

    const upstream = spawnService({
      SVC_HTTP_HOST: '0.0.0.0',
      SVC_HTTP_PORT: '0',
      SVC_HTTP_TLS_TERMINATED_UPSTREAM: 'true',
    });
    t.teardown(() => upstream.child.kill('SIGKILL'));
    await upstream.listening;
    t.notMatch(upstream.stderr(), /http\.tls/, 'TLS ended upstream: no finding');

    const enforced = spawnService({
      SVC_HTTP_HOST: '0.0.0.0',
      SVC_HTTP_PORT: '0',
      SVC_SECURITY_PREFLIGHT: 'enforce',
      SVC_HTTP_TLS_TERMINATED_UPSTREAM: 'false',
    });
    t.equal(await enforced.exited, 1);
    t.match(enforced.stderr(), /\[FAIL\] http\.tls: plain HTTP/, 'enforce refuses plain HTTP on an exposed bind');

    const broken: Array<[string, Record<string, string>, RegExp]> = [
      [
        'a certificate without its key',
        { SVC_HTTP_TLS_CERT_FILE: pki.serverCertFile },
        /http\.tls: http\.tls needs both certFile and keyFile/,
      ],
      [
        "a key that is not the certificate's",
        { SVC_HTTP_TLS_CERT_FILE: pki.serverCertFile, SVC_HTTP_TLS_KEY_FILE: pki.clientKeyFile },
        /\[FAIL\] http\.tls: .*(key values mismatch|KEY_VALUES_MISMATCH)/i,
      ],
      [
        'a file that cannot be read',
        { SVC_HTTP_TLS_CERT_FILE: '/nonexistent/cert.pem', SVC_HTTP_TLS_KEY_FILE: pki.serverKeyFile },
        /http\.tls\.certFile: cannot read \/nonexistent\/cert\.pem \(ENOENT\)/,
      ],
      [
        'a client CA without a certificate',
        { SVC_HTTP_TLS_CLIENT_CA_FILE: pki.caFile },
        /clientCaFile is set without a certificate/,
      ],
    ];
    for (const [what, env, message] of broken) {
      const svcProcess = spawnService({ SVC_HTTP_HOST: '127.0.0.1', SVC_HTTP_PORT: '0', ...env });
      t.equal(await svcProcess.exited, 1, `${what}: the boot fails even in warn mode`);
      t.match(svcProcess.stderr(), message, what);
    }
  },
);

/**
 * A TLS 1.2 handshake by the openssl command line offering the one suite `cipher`; the suite agreed on, or null when
 * refused.
 */
async function tls12Handshake(port: number, cipher: string): Promise<string | null> {
  const { execFile } = await import('node:child_process');
  return new Promise((resolve) => {
    const child = execFile(
      'openssl',
      ['s_client', '-connect', `127.0.0.1:${port}`, '-tls1_2', '-cipher', cipher, '-CAfile', pki.caFile],
      { timeout: 20_000 },
      (err, stdout) => {
        const agreed = /Cipher is (\S+)/.exec(stdout)?.[1];
        resolve(err || !agreed || agreed === '(NONE)' ? null : agreed);
      },
    );
    child.stdin?.end();
  });
}

t.test('TLS 1.2 offers forward-secret AEAD suites only: no RSA key exchange, no CBC', async (t) => {
  for (const [certKind, certFile, keyFile, accepted, refused] of [
    [
      'RSA',
      pki.rsaServerCertFile,
      pki.rsaServerKeyFile,
      ['ECDHE-RSA-AES128-GCM-SHA256', 'ECDHE-RSA-AES256-GCM-SHA384', 'ECDHE-RSA-CHACHA20-POLY1305'],
      [
        'AES128-GCM-SHA256',
        'AES256-GCM-SHA384',
        'AES128-SHA256',
        'ECDHE-RSA-AES128-SHA256',
        'ECDHE-RSA-AES256-SHA384',
        'ECDHE-RSA-AES128-SHA',
      ],
    ],
    [
      'ECDSA',
      pki.serverCertFile,
      pki.serverKeyFile,
      ['ECDHE-ECDSA-AES128-GCM-SHA256', 'ECDHE-ECDSA-CHACHA20-POLY1305'],
      ['ECDHE-ECDSA-AES128-SHA256', 'ECDHE-ECDSA-AES256-SHA384', 'ECDHE-ECDSA-AES128-SHA'],
    ],
  ] as const) {
    const service = started(t, { SVC_HTTP_TLS_CERT_FILE: certFile, SVC_HTTP_TLS_KEY_FILE: keyFile });
    const port = await service.listening;
    for (const cipher of accepted)
      t.equal(await tls12Handshake(port, cipher), cipher, `${certKind} certificate: ${cipher} is agreed`);
    for (const cipher of refused)
      t.equal(await tls12Handshake(port, cipher), null, `${certKind} certificate: ${cipher} is refused`);
  }
});
