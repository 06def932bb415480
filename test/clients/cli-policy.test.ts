import { writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { OPERATIONS } from '../../kernel/model/operation.ts';
import { cliEnv, svc, svcJson } from '../helpers/cli.ts';
import { startTestService, tempDir } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

// svc policy get / put against a real service with role-based policy (the built binary, as a user runs it).
const ADMINS = { admins: [...OPERATIONS] };
const service = await startTestService({
  SVC_AUTH_KIND: 'hmac',
  SVC_AUTH_HMAC_SECRET: TEST_SECRET,
  SVC_POLICY_KIND: 'role-based',
  SVC_POLICY_ROLE_BINDINGS: JSON.stringify(ADMINS),
});
t.teardown(() => service.stop());
const token = (claims: Record<string, unknown>) => mintToken(claims, { ttlSeconds: 3600 });
const env = cliEnv(tempDir('svc-cli-policy-'), {
  SVC_SERVER: service.url,
  SVC_TOKEN: await token({ sub: 'alice', svc_groups: ['admins'] }),
});
const json = svcJson(env);
const dir = tempDir();
const file = (name: string, content: unknown) => {
  const at = path.join(dir, name);
  writeFileSync(at, typeof content === 'string' ? content : JSON.stringify(content));
  return at;
};

t.test('policy get: the document as JSON, --etag alone, -o json with version and etag', async (t) => {
  const text = await svc(['policy', 'get'], env);
  t.equal(text.code, 0, text.stderr);
  t.same(JSON.parse(text.out), { roleBindings: ADMINS, subjectBindings: {} }, 'the document, ready to edit');
  const etag = await svc(['policy', 'get', '--etag'], env);
  t.match(etag.out, /^"1-[0-9a-f]{16}"\n$/);
  t.match(await json(['policy', 'get']), { version: 1, etag: etag.out.trim(), roleBindings: ADMINS });
});

t.test('policy put: --if-match, stale, bad bindings, --force, stdin, and what a file may hold', async (t) => {
  const current = await json(['policy', 'get']);
  const withReaders = { roleBindings: { ...ADMINS, readers: ['Get'] }, subjectBindings: {} };
  const edited = file('readers.json', withReaders);

  const unsent = await svc(['policy', 'put', edited], env);
  t.equal(unsent.code, 2, 'neither --if-match nor --force: nothing is sent');
  t.match(unsent.stderr, /give --if-match ETAG .* or --force/);
  t.equal((await svc(['policy', 'put', edited, '--force', '--if-match', current.etag], env)).code, 2);

  const second = await json(['policy', 'put', edited, '--if-match', current.etag]);
  t.match(second, { version: 2, roleBindings: withReaders.roleBindings });
  const stale = await svc(['policy', 'put', edited, '--if-match', current.etag], env);
  t.equal(stale.code, 1, 'a stale ETag');
  t.match(stale.stderr, /PreconditionFailed \(HTTP 412\)/);
  const bad = await svc(
    ['policy', 'put', file('bad.json', { roleBindings: { x: ['Fly'] }, subjectBindings: {} }), '--force'],
    env,
  );
  t.equal(bad.code, 1);
  t.match(bad.stderr, /InvalidField \(HTTP 400\).*unknown operation "Fly"/);

  // What `policy get -o json` wrote may go back as it is: its version and etag are not part of the document.
  const saved = file('saved.json', { ...(await json(['policy', 'get'])), subjectBindings: { carol: ['Get'] } });
  const third = await svc(['policy', 'put', saved, '--force', '-o', 'value'], env);
  t.equal(third.code, 0, third.stderr);
  t.match(third.out, /^"3-[0-9a-f]{16}"\n$/, '-o value prints the new ETag');
  const fourth = await svc(['policy', 'put', '-', '--if-match', third.out.trim()], env, JSON.stringify(withReaders));
  t.equal(fourth.code, 0, fourth.stderr);
  t.equal((await json(['policy', 'get'])).version, 4, 'from stdin');

  for (const [name, content, message] of [
    ['typo.json', { roleBinding: {}, subjectBindings: {} }, /holds roleBinding/],
    ['half.json', { roleBindings: ADMINS }, /needs subjectBindings/],
    ['text.json', 'not json', /is not JSON/],
    ['list.json', [], /must hold a JSON object/],
  ] as const) {
    const r = await svc(['policy', 'put', file(name, content), '--force'], env);
    t.equal(r.code, 2, `${name}: usage error`);
    t.match(r.stderr, message);
  }
  const missing = await svc(['policy', 'put', path.join(dir, 'absent.json'), '--force'], env);
  t.equal(missing.code, 2);
  t.match(missing.stderr, /cannot read .*ENOENT/);
  t.equal((await json(['policy', 'get'])).version, 4, 'nothing refused was stored');
});

t.test('a Service may not replace the policy (exit 5); a deployment on dev policy has none (exit 1)', async (t) => {
  const asService = {
    ...env,
    SVC_TOKEN: await token({ sub: 'deployer', svc_kind: 'service', svc_groups: ['admins'] }),
  };
  const refused = await svc(
    ['policy', 'put', file('any.json', { roleBindings: ADMINS, subjectBindings: {} }), '--force'],
    asService,
  );
  t.equal(refused.code, 5);
  t.match(refused.stderr, /PermissionDenied/);
  const dev = await startTestService();
  t.teardown(() => dev.stop());
  const none = await svc(['policy', 'get'], cliEnv(tempDir(), { SVC_SERVER: dev.url, SVC_USER: 'erin' }));
  t.equal(none.code, 1);
  t.match(none.stderr, /IllegalOperation \(HTTP 409\).*role-based/);
});
