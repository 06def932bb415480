import t from 'tap';
import { cliEnv, svc, svcJson } from '../helpers/cli.ts';
import { startTestService, tempDir } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

// keys tag, keys create and list --tag, keys disable and enable: the built binary against a real service
// (aliases are in cli-aliases.test.ts). The risk gate is off: the agent here only tries to enable a key.
const service = await startTestService({
  SVC_AUTH_KIND: 'hmac',
  SVC_AUTH_HMAC_SECRET: TEST_SECRET,
  SVC_RISK_ENABLED: 'false',
});
t.teardown(() => service.stop());
const alice = await mintToken({ sub: 'alice' }, { ttlSeconds: 3600 });
const env = cliEnv(tempDir('svc-cli-model-'), { SVC_SERVER: service.url, SVC_TOKEN: alice });
const json = svcJson(env);
const lines = (text: string) => text.split('\n').filter(Boolean);

async function activeKey(name: string, ...flags: string[]): Promise<string> {
  const key = await json(['keys', 'create', '--name', name, '--algorithm', 'AES', ...flags]);
  await json(['keys', 'activate', key.id]);
  return key.id;
}

t.test('tags: at creation, set, removed, and keys list --tag with every tag matching', async (t) => {
  // Independent runs of svc go side by side: each costs about a second on a loaded machine.
  const [created, other] = await Promise.all([
    json([
      'keys',
      'create',
      '--name',
      'cli-tagged',
      '--algorithm',
      'AES',
      '--tag',
      'team=payments',
      '--tag',
      'env=prod',
    ]),
    json(['keys', 'create', '--name', 'cli-other', '--algorithm', 'AES', '--tag', 'team=payments']),
  ]);
  t.same(created.tags, { team: 'payments', env: 'prod' });
  t.same(await json(['keys', 'tag', 'set', created.id, 'env=staging', 'owner=ana=b']), {
    id: created.id,
    tags: { team: 'payments', env: 'staging', owner: 'ana=b' },
  });
  const removed = await svc(['keys', 'tag', 'remove', created.id, 'owner', 'absent', '-o', 'value'], env);
  t.equal(removed.out, '{"team":"payments","env":"staging"}\n', '-o value prints the tags left');

  const found = async (...tags: string[]) => {
    const r = await svc(['keys', 'list', ...tags.flatMap((tag) => ['--tag', tag]), '-o', 'value'], env);
    t.equal(r.code, 0, r.stderr);
    return lines(r.out).sort();
  };
  const [both, one, none] = await Promise.all([
    found('team:payments'),
    found('team:payments', 'env:staging'),
    found('env:nowhere'),
  ]);
  t.same(both, [created.id, other.id].sort());
  t.same(one, [created.id], 'every --tag must match');
  t.same(none, []);
  const row = JSON.parse((await svc(['keys', 'list', '--tag', 'env:staging', '--json'], env)).out);
  t.match(row, { id: created.id, enabled: true, tags: { team: 'payments', env: 'staging' } }, '--json rows');

  const refusals = [
    [['keys', 'list', '--tag', 'team=payments'], /--tag takes key:value/],
    [['keys', 'tag', 'set', created.id, 'novalue'], /tags are key=value/],
    [['keys', 'tag', 'set', created.id, 'a=1', 'a=2'], /tag a is given twice/],
    [['keys', 'tag', 'remove', created.id, 'a,b'], /holds a comma: give each tag key as its own argument/],
    [['keys', 'create', '--name', 'x', '--algorithm', 'AES', '--tag', '=x'], /--tag takes key=value/],
  ] as const;
  const answers = await Promise.all(refusals.map(([args]) => svc([...args], env)));
  for (const [i, r] of answers.entries()) {
    const [args, message] = refusals[i]!;
    t.equal(r.code, 2, `${args.join(' ')}: usage error`);
    t.match(r.stderr, message);
  }
});

t.test('keys disable and enable: a paused key serves nothing, and only a Human enables it', async (t) => {
  const id = await activeKey('cli-paused');
  t.match(await json(['keys', 'disable', id, '--reason', 'suspected leak']), {
    id,
    state: 'Active',
    enabled: false,
    disabledReason: 'suspected leak',
  });
  const refused = await svc(['keys', 'encrypt', id, '--message', 'x'], env);
  t.equal(refused.code, 1);
  t.match(refused.stderr, /IllegalOperation.*disabled/);
  const text = await svc(['keys', 'list', '--name', 'cli-paused'], env);
  t.match(text.out, /Active \(disabled\)/, 'the list shows the pause beside the state');

  const issued = await json(['agent', 'issue', '--label', 'pauser', '--scope', 'Disable,Enable,Get', '--ttl', '600']);
  const asAgent = { ...env, SVC_TOKEN: issued.jwt };
  const agentEnable = await svc(['keys', 'enable', id], asAgent);
  t.equal(agentEnable.code, 5, 'an agent may not lift a pause: exit 5');
  t.match(agentEnable.stderr, /PermissionDenied/);
  t.equal((await svc(['keys', 'enable', id, '-o', 'value'], env)).out, 'true\n');
  t.equal((await svc(['keys', 'encrypt', id, '--message', 'x'], env)).code, 0, 'it serves again');
});
