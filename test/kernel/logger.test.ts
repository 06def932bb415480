import t from 'tap';
import { createServiceLogger, LOG_LEVELS } from '../../kernel/logger.ts';

function recorded(level?: (typeof LOG_LEVELS)[number]) {
  const lines: string[] = [];
  const logger = createServiceLogger({ ...(level ? { level } : {}), write: (line) => void lines.push(line) });
  return { logger, lines, parsed: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

t.test(
  'a line is one JSON object: level by name, ISO time, pid, hostname, the node once configured, msg before the fields',
  async (t) => {
    const { logger, lines, parsed } = recorded();
    logger.configure({ node: 'kms-7' });
    logger.info('listening', { protocol: 'http', port: 8080, msg: 'a field named msg' });
    t.equal(lines.length, 1);
    t.ok(lines[0]!.endsWith('}\n'), 'one line, newline-terminated');
    const line = parsed()[0]!;
    t.equal(line.level, 'info');
    t.match(line.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    t.equal(line.pid, process.pid);
    t.type(line.hostname, 'string');
    t.equal(line.node, 'kms-7');
    t.equal(line.msg, 'listening');
    t.equal(line.port, 8080);
    t.match(lines[0], /"msg":"listening","protocol":"http","port":8080/);
  },
);

t.test('the level setting decides what is written, and can be changed once the config is read', async (t) => {
  const { logger, parsed } = recorded('warn');
  for (const level of LOG_LEVELS) logger[level as 'info'](`at ${level}`);
  t.same(
    parsed().map((l) => l.level),
    ['warn', 'error', 'fatal'],
  );
  logger.configure({ level: 'trace' });
  t.equal(logger.level, 'trace');
  logger.debug('now debug');
  t.equal(parsed().at(-1)!.msg, 'now debug');
  logger.configure({ level: 'fatal' });
  logger.error('dropped');
  t.equal(parsed().at(-1)!.msg, 'now debug', 'error is below fatal');
});

t.test('credentials never reach a line, wherever a caller put them', async (t) => {
  const { logger, lines } = recorded('trace');
  const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg';
  const secrets = [
    'hunter2-password',
    'pin-1234-5678',
    'so-pin-8765',
    'the-hmac-secret-of-this-service-000',
    'opaque-token-abc',
    jwt,
    'dXNlcjpwYXNzd29yZA',
    'url-pw-9911',
    'query-token-7722',
    'key-material-bytes',
  ];
  const fields = {
    headers: { authorization: `Bearer ${jwt}`, 'x-svc-user': 'alice' },
    request: { headers: { Authorization: 'Basic dXNlcjpwYXNzd29yZA' } },
    password: 'hunter2-password',
    pkcs11: { pin: 'pin-1234-5678', soPin: 'so-pin-8765' },
    auth: { hmacSecret: 'the-hmac-secret-of-this-service-000' },
    token: 'opaque-token-abc',
    error: `connect to postgres://svc:url-pw-9911@db:5432/svc failed; retry with https://idp/x?access_token=query-token-7722`,
    cause: new Error(`token ${jwt} did not verify`),
    material: Buffer.from('key-material-bytes'),
    nested: [{ detail: `Authorization: Bearer ${jwt}` }],
  };
  logger.warn(`refused ${jwt}`, fields);
  const text = lines.join('');
  for (const secret of secrets) t.notMatch(text, secret, `${secret.slice(0, 12)}... is not in the line`);
  const line = JSON.parse(text);
  t.equal(line.headers.authorization, '[Redacted]');
  t.equal(line.headers['x-svc-user'], 'alice', 'what is not a credential stays');
  t.equal(line.pkcs11.pin, '[Redacted]');
  t.equal(line.error, 'connect to postgres://svc:***@db:5432/svc failed; retry with https://idp/x?access_token=***');
  t.same(line.cause, { name: 'Error', message: 'token [Redacted JWT] did not verify' });
  t.equal(fields.password, 'hunter2-password', "the caller's object is left as it was");
  t.equal(fields.headers.authorization, `Bearer ${jwt}`);
});
