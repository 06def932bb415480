import t from 'tap';
import { cliEnv, svc, svcJson } from '../helpers/cli.ts';
import { startTestService, tempDir } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

// svc access-keys create, list and delete: the built binary against a real service, as a user runs it.
const service = await startTestService({ SVC_AUTH_KIND: 'hmac', SVC_AUTH_HMAC_SECRET: TEST_SECRET });
t.teardown(() => service.stop());
const token = (claims: Record<string, unknown>) => mintToken(claims, { ttlSeconds: 3600 });
const env = cliEnv(tempDir('svc-cli-access-keys-'), {
  SVC_SERVER: service.url,
  SVC_TOKEN: await token({ sub: 'alice', svc_groups: ['kms-admins'] }),
});
const json = svcJson(env);
const lines = (text: string) => text.split('\n').filter(Boolean);

t.test('create prints the secret once, for yourself or a Service; list never shows it', async (t) => {
  const [own, billing, valued] = await Promise.all([
    svc(['access-keys', 'create'], env),
    json(['access-keys', 'create', '--service', 'billing-app']),
    svc(['access-keys', 'create', '-o', 'value'], env),
  ]);
  t.equal(own.code, 0, own.stderr);
  t.match(own.out, /^accessKeyId\s+AKSV[A-Z2-7]{16}$/m, 'the readable answer names the key...');
  t.match(own.out, /^secretAccessKey\s+[A-Za-z0-9_-]{43}$/m, '...and its secret');
  t.match(own.stderr, /shown only once/, 'and says to keep it now');
  t.match(billing, {
    accessKeyId: /^AKSV/,
    secretAccessKey: /^[A-Za-z0-9_-]{43}$/,
    principal: { kind: 'Service', subject: 'billing-app' },
  });
  t.equal(valued.code, 0, valued.stderr);
  const [id, secret] = lines(valued.out);
  t.match(id, /^AKSV[A-Z2-7]{16}$/, '-o value: the id first...');
  t.match(secret, /^[A-Za-z0-9_-]{43}$/, '...then the secret, for a script');

  const listed = await svc(['access-keys', 'list'], env);
  t.equal(listed.code, 0, listed.stderr);
  t.equal(lines(listed.out).length, 3);
  t.match(listed.out, new RegExp(`^${billing.accessKeyId}  Service billing-app  \\S+  by alice$`, 'm'));
  t.notOk(listed.out.includes(billing.secretAccessKey), 'no secret in the list');
  const table = await svc(['access-keys', 'list', '--principal', 'billing-app', '-o', 'table'], env);
  t.same(
    lines(table.out).map((l) => l.split(/\s{2,}/)[0]),
    ['ACCESS KEY', billing.accessKeyId],
    "one principal's keys, in columns",
  );
  const ids = await svc(['access-keys', 'list', '-o', 'value'], env);
  t.same(lines(ids.out), [...lines(ids.out)].sort(), 'ids one a line, in order');
  t.ok(lines(ids.out).includes(id!));
});

t.test('delete: gone from the list; an unknown id exits 4, a Service exits 5', async (t) => {
  const made = await json(['access-keys', 'create', '--service', 'reports']);
  t.match(await json(['access-keys', 'delete', made.accessKeyId]), { accessKeyId: made.accessKeyId, deleted: true });
  const left = await svc(['access-keys', 'list', '--principal', 'reports', '--json'], env);
  t.equal(left.code, 0, left.stderr);
  t.equal(left.out, '', 'nothing left (--json is a line per key)');
  const again = await svc(['access-keys', 'delete', made.accessKeyId], env);
  t.equal(again.code, 4, 'not found');
  t.match(again.stderr, /NotFound \(HTTP 404\)/);
  const asService = { ...env, SVC_TOKEN: await token({ sub: 'deployer', svc_kind: 'service' }) };
  const refused = await svc(['access-keys', 'create'], asService);
  t.equal(refused.code, 5, 'permission denied');
  t.match(refused.stderr, /human principals only/);
});
