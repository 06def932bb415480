import t from 'tap';
import { cliEnv, svc, svcJson } from '../helpers/cli.ts';
import { startTestService, tempDir } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

// keys alias and agent issue --keys: the built binary against a real service (keys tag, disable and
// enable are in cli-tags.test.ts, so each file stays well inside the time limit). The risk gate is off:
// the agent's calls here are about key patterns.
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

t.test('keys alias create, move, list and delete; the alias works wherever a key id does', async (t) => {
  // Independent runs of svc go side by side: each costs about a second on a loaded machine.
  const [k1, k2] = await Promise.all([activeKey('cli-alias-1'), activeKey('cli-alias-2')]);
  t.match(await json(['keys', 'alias', 'create', 'billing', k1]), { name: 'alias/billing', keyId: k1 }, 'NAME alone');
  const taken = await svc(['keys', 'alias', 'create', 'alias/billing', k2], env);
  t.equal(taken.code, 1, 'create never moves an alias');
  t.match(taken.stderr, /IllegalOperation \(HTTP 409\)/);
  t.match(await json(['keys', 'alias', 'move', 'billing', k2]), { keyId: k2, previousKeyId: k1 });
  t.match(await json(['keys', 'get', 'alias/billing']), { id: k2, aliases: ['alias/billing'] });
  const sealed = await svc(['keys', 'encrypt', 'alias/billing', '--message', 'hi', '-o', 'value'], env);
  t.equal(sealed.code, 0, sealed.stderr);
  const opened = await svc(['keys', 'decrypt', k2, '--message-base64', sealed.out.trim(), '-o', 'value'], env);
  t.equal(Buffer.from(opened.out.trim(), 'base64').toString(), 'hi', 'encrypted under the key the alias names');

  await Promise.all(['zz-c', 'zz-a', 'zz-b'].map((name) => json(['keys', 'alias', 'create', name, k1])));
  const listed = await svc(['keys', 'alias', 'list', '--key', k1, '-o', 'value'], env);
  t.same(lines(listed.out), ['alias/zz-a', 'alias/zz-b', 'alias/zz-c'], "one key's aliases, by name");
  const limited = await svc(['keys', 'alias', 'list', '--limit', '2', '-o', 'table'], env);
  t.match(lines(limited.out)[0], /^NAME\s+KEY\s+CREATED$/);
  t.same(
    lines(limited.out)
      .slice(1)
      .map((l) => l.split(/\s+/)[0]),
    ['alias/billing', 'alias/zz-a'],
    '--limit stops the list',
  );

  t.same(await json(['keys', 'alias', 'delete', 'billing']), { name: 'alias/billing', keyId: k2 });
  const gone = await svc(['keys', 'alias', 'delete', 'billing'], env);
  t.equal(gone.code, 4, 'an alias that names no key: exit 4 (not found)');
  t.match(gone.stderr, /NotFound/);
  t.equal((await svc(['keys', 'alias', 'create', 'only-a-name'], env)).code, 2, 'a missing argument: usage');
});

t.test('agents issue --keys: the agent reaches the keys its patterns name, and no other', async (t) => {
  const [mine, other] = await Promise.all([activeKey('cli-agent-mine'), activeKey('cli-agent-other')]);
  await json(['keys', 'alias', 'create', 'agent-target', mine]);
  const issued = await json([
    'agents',
    'issue',
    '--label',
    'one-key bot',
    '--scope',
    'Encrypt',
    '--ttl',
    '600',
    '--keys',
    'alias:agent-target',
    '--keys',
    'name:never-*',
  ]);
  const listed = await svc(['agent', 'list', '--json'], env);
  const entry = lines(listed.out)
    .map((l) => JSON.parse(l))
    .find((a) => a.agentId === issued.agentId);
  t.same(entry.keys, ['alias:agent-target', 'name:never-*'], 'both patterns, one of them with a glob');
  const asAgent = { ...env, SVC_TOKEN: issued.jwt };
  t.equal((await svc(['keys', 'encrypt', 'alias/agent-target', '--message', 'ok'], asAgent)).code, 0);
  const elsewhere = await svc(['keys', 'encrypt', other, '--message', 'no'], asAgent);
  t.equal(elsewhere.code, 5, 'another key: permission denied');
  t.match(elsewhere.stderr, /key patterns/);
});
