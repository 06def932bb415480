import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { decodeJwt } from 'jose';
import t from 'tap';
import { stringify } from 'yaml';
import { ApiClient } from '../helpers/client.ts';
import { spawnService } from '../helpers/process.ts';
import { startTestService, tempDir } from '../helpers/service.ts';
import { TEST_SECRET } from '../helpers/tokens.ts';

// It starts many server processes one after another: minutes on a 2-core machine that runs other tests too.
t.setTimeout(300_000);

// The operator's configuration, read by the server and by the command alike: hmac mode, role-based
// policy in which only the admins group may do anything.
const dir = tempDir();
const configFile = path.join(dir, 'svc.yaml');
writeFileSync(
  configFile,
  stringify({
    auth: { kind: 'hmac', hmacSecret: TEST_SECRET },
    policy: {
      kind: 'role-based',
      roleBindings: { admins: ['Create', 'Get', 'Activate', 'Encrypt', 'Decrypt', 'Query', 'Revoke'] },
    },
  }),
);
const svc = await startTestService({}, { argv: ['--config', configFile] });
t.teardown(() => svc.stop());

/** `npm start -- [--config FILE] issue-token ...` as its own process, with nothing else in its environment. */
async function issueToken(args: string[], env: Record<string, string> = {}) {
  const run = spawnService(env, ['issue-token', ...args]);
  const code = await run.exited;
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

t.test(
  "an operator mints a Human token from the server's own configuration; the running service accepts it with its groups",
  async (t) => {
    const before = Math.floor(Date.now() / 1000);
    const run = await issueToken(['--config', configFile, '--subject', 'alice', '--groups', 'admins', '--ttl', '8h']);
    t.equal(run.code, 0, run.stderr);
    t.match(run.stdout, /^[\w-]+\.[\w-]+\.[\w-]+\n$/, 'stdout is the token and nothing else');
    const token = run.stdout.trim();
    const claims = decodeJwt(token);
    t.match(claims, { sub: 'alice', svc_kind: 'human', svc_groups: ['admins'], iss: 'svc-kms', aud: 'svc-kms' });
    t.equal(claims.exp! - claims.iat!, 8 * 3600);
    t.ok(claims.iat! >= before - 1);

    const issued = JSON.parse(run.stderr.split('\n').find((l) => l.includes('"human token issued"'))!);
    t.match(issued, {
      level: 'info',
      subject: 'alice',
      groups: ['admins'],
      jti: claims.jti,
      expiresAt: new Date(claims.exp! * 1000).toISOString(),
    });
    t.notMatch(run.stderr, token.split('.')[2]!, 'the token is not on stderr');

    const alice = new ApiClient(svc.url, { Authorization: `Bearer ${token}` });
    const key = await alice.key({ algorithm: 'AES', sizeBits: 256 });
    const got = await alice.get(`/v1/keys/${key}`);
    t.equal(got.status, 200);
    t.equal(got.body.owner, 'alice');
    t.match((await alice.auditOf(key))[0].principal, { subject: 'alice', kind: 'Human' });

    // The jti makes it revocable like any token: revoked, it is refused from then on.
    t.equal((await alice.post('/v1/tokens/revoke', { jti: claims.jti, expiresAt: issued.expiresAt })).status, 200);
    t.equal((await alice.get(`/v1/keys/${key}`)).status, 401);
  },
);

t.test('the groups are what the policy sees: a token without the admins group is refused', async (t) => {
  const run = await issueToken(['--config', configFile, '--subject', 'mallory', '--ttl', '5m']);
  t.equal(run.code, 0, run.stderr);
  const mallory = new ApiClient(svc.url, { Authorization: `Bearer ${run.stdout.trim()}` });
  const refused = await mallory.post('/v1/keys', { spec: { name: 'nope', algorithm: 'AES' } });
  t.equal(refused.status, 403);
  t.equal(refused.body.error, 'PermissionDenied');
});

t.test('a token minted with another secret is refused by the service', async (t) => {
  const run = await issueToken(['--subject', 'alice', '--groups', 'admins'], {
    SVC_AUTH_KIND: 'hmac',
    SVC_AUTH_HMAC_SECRET: 'not-the-service-secret-but-long-enough-0123456789',
  });
  t.equal(run.code, 0, run.stderr);
  const claims = decodeJwt(run.stdout.trim());
  t.equal(claims.exp! - claims.iat!, 3600, 'the default life is an hour');
  const res = await new ApiClient(svc.url, { Authorization: `Bearer ${run.stdout.trim()}` }).get('/v1/audit');
  t.equal(res.status, 401);
});

t.test(
  'outside hmac mode, or with a short secret, the command refuses with a sentence and prints no token',
  async (t) => {
    const dev = await issueToken(['--subject', 'alice']);
    t.equal(dev.code, 1);
    t.equal(dev.stdout, '');
    t.match(dev.stderr, /issue-token mints tokens for auth\.kind hmac only, and SVC_AUTH_KIND is dev/);
    const oidc = await issueToken(['--subject', 'alice'], {
      SVC_AUTH_KIND: 'oidc',
      SVC_AUTH_OIDC_ISSUER_URI: 'https://idp.example',
      SVC_AUTH_HMAC_SECRET: TEST_SECRET,
    });
    t.equal(oidc.code, 1);
    t.equal(oidc.stdout, '');
    t.match(oidc.stderr, /SVC_AUTH_KIND is oidc: in oidc mode Human tokens come from the identity provider/);
    const short = await issueToken(['--subject', 'alice'], { SVC_AUTH_KIND: 'hmac', SVC_AUTH_HMAC_SECRET: 'short' });
    t.equal(short.code, 1);
    t.equal(short.stdout, '');
    t.match(short.stderr, /SVC_AUTH_HMAC_SECRET\) is 5 bytes; at least 32/);
  },
);

t.test('bad flags are usage errors (exit 2) that print no token', async (t) => {
  const hmac = { SVC_AUTH_KIND: 'hmac', SVC_AUTH_HMAC_SECRET: TEST_SECRET };
  const cases: Array<[string[], RegExp]> = [
    [[], /issue-token needs --subject NAME/],
    [['--subject', '  '], /issue-token needs --subject NAME/],
    [['--subject', 'svc-system'], /--subject svc-system is reserved/],
    [['--subject', 'a'.repeat(257)], /--subject is longer than 256 characters/],
    [['--subject', 'alice', '--ttl', '25h'], /--ttl must be between 1m and 24h/],
    [['--subject', 'alice', '--ttl', '30s'], /--ttl must be between 1m and 24h/],
    [['--subject', 'alice', '--ttl', 'forever'], /--ttl "forever" is not a duration/],
    [['--subject', 'alice', '--groups', 'admins,,ops'], /--groups is a comma list/],
    [['--subject', 'alice', '--role', 'admin'], /Unknown option '--role'/],
  ];
  for (const [args, message] of cases) {
    const run = await issueToken(args, hmac);
    t.equal(run.code, 2, args.join(' '));
    t.equal(run.stdout, '');
    t.match(run.stderr, message);
  }
  const stray = spawnService(hmac, ['--subject', 'alice']);
  t.equal(await stray.exited, 2);
  t.match(stray.stderr(), /--subject goes only with issue-token/);
});
