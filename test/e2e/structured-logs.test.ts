import t from 'tap';
import { ApiClient } from '../helpers/client.ts';
import { spawnService } from '../helpers/process.ts';
import { freePort } from '../helpers/test-server.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';
import { until } from '../helpers/until.ts';

const KEK = Buffer.alloc(32, 7).toString('base64');
const HMAC = {
  SVC_HTTP_HOST: '127.0.0.1',
  SVC_AUTH_KIND: 'hmac',
  SVC_AUTH_HMAC_SECRET: TEST_SECRET,
  SVC_CRYPTO_LOCAL_KEK: KEK,
};

/** stderr's log lines (the boot tree in between is text for people, not a log line). */
const logLines = (stderr: string) =>
  stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

t.test(
  'at trace level, a served and refused token, the hmac secret and the ' +
    'KEK never appear on stderr; every line names the node',
  async (t) => {
    const svc = spawnService({ ...HMAC, SVC_HTTP_PORT: '0', SVC_LOG_LEVEL: 'trace', SVC_NODE_ID: 'kms-logs-1' });
    const port = await svc.listening;
    const token = await mintToken({ sub: 'alice' });
    const api = new ApiClient(`http://127.0.0.1:${port}`, { Authorization: `Bearer ${token}` });
    const key = await api.key({ algorithm: 'AES', sizeBits: 256 });
    t.equal(
      (await api.post(`/v1/keys/${key}/encrypt`, { plaintextBase64: Buffer.from('card 4111').toString('base64') }))
        .status,
      200,
    );
    const forged = `${token.slice(0, token.lastIndexOf('.'))}.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`;
    t.equal((await new ApiClient(api.base, { Authorization: `Bearer ${forged}` }).get(`/v1/keys/${key}`)).status, 401);
    svc.child.kill('SIGTERM');
    t.equal(await svc.exited, 0);

    const stderr = svc.stderr();
    for (const secret of [TEST_SECRET, KEK, token, forged, token.split('.')[2]!])
      t.notMatch(stderr, secret, 'no credential in the logs');
    const lines = logLines(stderr);
    t.ok(lines.length >= 2, 'listening and shutting down, at least');
    for (const line of lines) {
      t.equal(line.node, 'kms-logs-1', `"${line.msg}" names the node`);
      t.type(line.pid, 'number');
      t.match(line.time, /^\d{4}-\d\d-\d\dT/);
    }
    t.match(
      lines.find((l) => l.msg === 'listening'),
      { level: 'info', protocol: 'http', port },
    );
  },
);

t.test('SVC_LOG_LEVEL=error leaves out the info lines, and the service still serves', async (t) => {
  const port = await freePort();
  const svc = spawnService({ ...HMAC, SVC_HTTP_PORT: String(port), SVC_LOG_LEVEL: 'error', SVC_NODE_ID: 'kms-logs-2' });
  const api = new ApiClient(`http://127.0.0.1:${port}`);
  await until(
    async () => (await api.get('/healthz').catch(() => ({ status: 0 }))).status === 200,
    'the service to answer /healthz',
  );
  svc.child.kill('SIGTERM');
  t.equal(await svc.exited, 0);
  t.same(logLines(svc.stderr()), [], 'neither listening nor shutting down is written');
});

t.test('an unknown level fails the boot naming log.level and SVC_LOG_LEVEL', async (t) => {
  const svc = spawnService({ ...HMAC, SVC_HTTP_PORT: '0', SVC_LOG_LEVEL: 'loud' });
  t.equal(await svc.exited, 1);
  t.match(
    svc.stderr(),
    /log\.level: must be one of the possible values: \["trace","debug","info","warn","error","fatal"\]: value was "loud" \(env SVC_LOG_LEVEL\)/,
  );
});
