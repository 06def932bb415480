import t from 'tap';
import { unknownVariables } from '../../config/unknown-variables.ts';
import { builtinSchema } from '../../app/write-config-docs.ts';
import { spawnService } from '../helpers/process.ts';

const schema = builtinSchema();

t.test('each SVC_* variable no setting reads is named with the known name it most likely misspells', async (t) => {
  const env = {
    SVC_LOG_LEVLE: 'debug', // two letters swapped
    SVC_AUTH_HMAC_SECRT: 'x', // one letter missing
    SVC_JOURNAL_KND: 'rdb-embedded',
    SVC_AUDIT_WEBHOOK_URLL: 'https://siem', // a plugin's setting
    SVC_WHATEVER_ELSE: '1', // no known name is near
    SVC_LOG_LEVEL: 'info', // known
    SVC_AUDIT_WEBHOOK_URL: 'https://siem', // known: a built-in plugin's setting
    SVC_CONFIG_FILE: '/etc/svc.yaml', // known: read before the schema
    SVC_SERVER: 'http://kms', // the svc CLI's own
    SVC_TEST_PG_URL: 'postgres://...', // the test suite's own
    PATH: '/usr/bin',
    svc_lower: 'not ours',
  };
  t.same(unknownVariables(env, schema), [
    { name: 'SVC_AUDIT_WEBHOOK_URLL', closest: 'SVC_AUDIT_WEBHOOK_URL' },
    { name: 'SVC_AUTH_HMAC_SECRT', closest: 'SVC_AUTH_HMAC_SECRET' },
    { name: 'SVC_JOURNAL_KND', closest: 'SVC_JOURNAL_KIND' },
    { name: 'SVC_LOG_LEVLE', closest: 'SVC_LOG_LEVEL' },
    { name: 'SVC_WHATEVER_ELSE' },
  ]);
});

t.test(
  'a misspelt variable stops the boot, naming it and the variable it most likely misspells, and nothing listens',
  async (t) => {
    // The operator meant enforce: booting on the default (warn) would put development authentication on a public bind.
    const svc = spawnService({
      SVC_HTTP_HOST: '127.0.0.1',
      SVC_HTTP_PORT: '0',
      SVC_SECURITY_PREFLIGT: 'enforce',
      SVC_AUTH_HMAC_SECRT: 'a-secret-that-must-not-be-printed-0123456789',
    });
    t.equal(await svc.exited, 1);
    t.match(svc.stderr(), /SVC_ALLOW_UNKNOWN_ENV=true boots with a warning instead/);
    t.match(svc.stderr(), /- SVC_SECURITY_PREFLIGT is not a setting of svc-kms; did you mean SVC_SECURITY_PREFLIGHT\?/);
    t.match(svc.stderr(), /- SVC_AUTH_HMAC_SECRT is not a setting of svc-kms; did you mean SVC_AUTH_HMAC_SECRET\?/);
    t.notMatch(svc.stderr(), /listening|a-secret-that-must-not/, 'nothing listens, and no value is printed');
  },
);

t.test('so does the server command print-config; SVC_ALLOW_UNKNOWN_ENV takes true or false only', async (t) => {
  const printed = spawnService({ SVC_RATE_LIMIT_RSP: '5' }, ['--print-config']);
  t.equal(await printed.exited, 1);
  t.match(printed.stderr(), /SVC_RATE_LIMIT_RSP is not a setting of svc-kms; did you mean SVC_RATE_LIMIT_RPS\?/);
  const wrong = spawnService({ SVC_ALLOW_UNKNOWN_ENV: 'yes' }, ['--print-config']);
  t.equal(await wrong.exited, 1);
  t.match(wrong.stderr(), /SVC_ALLOW_UNKNOWN_ENV must be true or false/);
});

t.test(
  'with SVC_ALLOW_UNKNOWN_ENV=true the misspelling is a warning line naming both variables, and the service starts',
  async (t) => {
    const svc = spawnService({
      SVC_HTTP_HOST: '127.0.0.1',
      SVC_HTTP_PORT: '0',
      SVC_RATE_LIMIT_RSP: '5',
      SVC_ALLOW_UNKNOWN_ENV: 'true',
    });
    await svc.listening;
    svc.child.kill('SIGTERM');
    t.equal(await svc.exited, 0);
    const warning = svc
      .stderr()
      .split('\n')
      .find((l) => l.includes('SVC_RATE_LIMIT_RSP'));
    t.ok(warning, 'a line names the variable');
    t.match(JSON.parse(warning!), {
      level: 'warn',
      msg: 'SVC_RATE_LIMIT_RSP is not a setting of svc-kms and is ignored; did you mean SVC_RATE_LIMIT_RPS?',
      variable: 'SVC_RATE_LIMIT_RSP',
      closest: 'SVC_RATE_LIMIT_RPS',
    });
    t.notMatch(svc.stderr(), /"5"/, 'the value is not logged: it may be a secret');
  },
);

t.test(
  'when the configuration is invalid, the misspellings are listed under the errors, since they are often the cause',
  async (t) => {
    const svc = spawnService({
      SVC_HTTP_HOST: '127.0.0.1',
      SVC_HTTP_PORT: '0',
      SVC_AUTH_KIND: 'hmac',
      SVC_JOURNAL_KIND: 'sqlite',
      SVC_JORUNAL_KIND: 'rdb-embedded',
    });
    t.equal(await svc.exited, 1);
    t.match(
      svc.stderr(),
      /journal\.kind: must be one of the possible values.*\(env SVC_JOURNAL_KIND\)\n\s+- SVC_JORUNAL_KIND is not a setting of svc-kms and is ignored; did you mean SVC_JOURNAL_KIND\?/,
    );
  },
);
