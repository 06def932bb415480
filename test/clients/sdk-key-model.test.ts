import t, { type Test } from 'tap';
import { SvcApiError, SvcClient } from '../../clients/sdk/index.ts';
import { OPERATIONS } from '../../kernel/model/operation.ts';
import { startTestService } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';
import { until } from '../helpers/until.ts';

// The SDK's key-model calls (aliases, tags, disable and enable, key-scoped agents, the policy) against
// one real service with role-based policy, so that GET and PUT /v1/policy have versions to serve. The
// risk gate is off: the agent's calls here are about key patterns, not about risk.
const ADMINS = { admins: [...OPERATIONS] };
const service = await startTestService({
  SVC_AUTH_KIND: 'hmac',
  SVC_AUTH_HMAC_SECRET: TEST_SECRET,
  SVC_RISK_ENABLED: 'false',
  SVC_POLICY_KIND: 'role-based',
  SVC_POLICY_ROLE_BINDINGS: JSON.stringify(ADMINS),
});
t.teardown(() => service.stop());
const client = async (claims: Record<string, unknown>) =>
  new SvcClient({ server: service.url, credentials: { token: await mintToken(claims, { ttlSeconds: 3600 }) } });
const alice = await client({ sub: 'alice', svc_groups: ['admins'] });
const deployer = await client({ sub: 'deployer', svc_kind: 'service', svc_groups: ['admins'] });
const text = (s: string) => new TextEncoder().encode(s);

async function apiError(t: Test, fn: () => Promise<unknown>): Promise<SvcApiError> {
  try {
    await fn();
  } catch (err) {
    t.type(err, SvcApiError);
    return err as SvcApiError;
  }
  throw new Error('expected an SvcApiError');
}

async function activeKey(name: string, tags?: Record<string, string>): Promise<string> {
  const key = await alice.createKey({ name, algorithm: 'AES', ...(tags ? { tags } : {}) });
  await alice.activateKey(key.id);
  return key.id;
}

t.test('aliases: create, use in place of the id, move, list page by page, delete', async (t) => {
  const [k1, k2] = [await activeKey('sdk-alias-1'), await activeKey('sdk-alias-2')];
  const created = await alice.putAlias('alias/sdk-billing', k1, { createOnly: true });
  t.match(created, { name: 'alias/sdk-billing', keyId: k1, createdAt: /^\d{4}-/ });
  t.notOk('previousKeyId' in created, 'a new alias names no previous key');
  t.same((await alice.getKey('alias/sdk-billing')).aliases, ['alias/sdk-billing'], 'the key lists its alias');
  const sealed = await alice.encrypt('alias/sdk-billing', text('through the alias'));
  t.equal(new TextDecoder().decode((await alice.decrypt(k1, sealed.ciphertext)).plaintext), 'through the alias');

  t.match(await apiError(t, () => alice.putAlias('alias/sdk-billing', k2, { createOnly: true })), {
    status: 409,
    code: 'IllegalOperation',
  });
  t.match(await alice.putAlias('alias/sdk-billing', k2), { keyId: k2, previousKeyId: k1 }, 'moved');
  t.same((await alice.listAliases({ keyId: k1 })).aliases, [], 'the old key has none left');
  t.same(
    (await alice.listAliases({ keyId: 'alias/sdk-billing' })).aliases.map((a) => a.name),
    ['alias/sdk-billing'],
    'keyId takes an alias too',
  );

  const names = ['alias/sdk-page-a', 'alias/sdk-page-b', 'alias/sdk-page-c', 'alias/sdk-page-d', 'alias/sdk-page-e'];
  for (const name of names) await alice.putAlias(name, k1);
  const pages: string[][] = [];
  for await (const page of alice.aliasPages({ keyId: k1, limit: 2 })) pages.push(page.map((a) => a.name));
  t.same(pages, [names.slice(0, 2), names.slice(2, 4), names.slice(4)], 'pages of two, by name');

  t.same(await alice.deleteAlias('alias/sdk-billing'), { name: 'alias/sdk-billing', keyId: k2 });
  t.match(await apiError(t, () => alice.deleteAlias('alias/sdk-billing')), { status: 404, code: 'NotFound' });
  t.match(await apiError(t, () => alice.putAlias('no-prefix', k1)), { status: 400 });
});

t.test('tags: at creation, merged, removed, and found with every tag filter matching', async (t) => {
  const payments = await activeKey('sdk-tag-payments', { team: 'payments', env: 'prod' });
  const staging = await activeKey('sdk-tag-staging', { team: 'payments', env: 'staging' });
  t.same((await alice.getKey(payments)).tags, { team: 'payments', env: 'prod' });
  t.same(await alice.tagKey(payments, { env: 'prod-eu', owner: 'ana' }), {
    id: payments,
    tags: { team: 'payments', env: 'prod-eu', owner: 'ana' },
  });
  t.same(await alice.untagKey(payments, ['owner', 'absent']), {
    id: payments,
    tags: { team: 'payments', env: 'prod-eu' },
  });

  const found = async (...tag: string[]) => (await alice.listKeys({ tag })).keys.map((k) => k.id).sort();
  t.same(await found('team:payments'), [payments, staging].sort(), 'one tag');
  t.same(await found('team:payments', 'env:staging'), [staging], 'every tag must match');
  t.same(await found('team:payments', 'env:nowhere'), []);
  const paged: string[] = [];
  for await (const page of alice.keyPages({ tag: ['team:payments'], limit: 1 }))
    paged.push(...page.keys.map((k) => k.id));
  t.same(paged.sort(), [payments, staging].sort(), 'keyPages keeps the filter on every page');

  const comma = await apiError(t, () => alice.untagKey(payments, ['a,b']));
  t.match(comma, { status: 0, code: 'InvalidField', message: /no tag key/ }, 'refused before anything is sent');
  t.same((await alice.getKey(payments)).tags, { team: 'payments', env: 'prod-eu' });
});

t.test('disable pauses the key; only a Human enables it', async (t) => {
  const id = await activeKey('sdk-pause');
  t.match(await alice.disableKey(id, 'suspected leak'), {
    id,
    state: 'Active',
    enabled: false,
    disabledAt: /^\d{4}-/,
    disabledReason: 'suspected leak',
  });
  t.match(await alice.getKey(id), { enabled: false, disabledReason: 'suspected leak' });
  t.match(await apiError(t, () => alice.encrypt(id, text('x'))), {
    status: 409,
    code: 'IllegalOperation',
    message: /disabled/,
  });
  t.match(await apiError(t, () => deployer.enableKey(id)), { status: 403, code: 'PermissionDenied' }, 'a Service');
  t.same(await alice.enableKey(id), { id, state: 'Active', enabled: true });
  t.equal((await alice.encrypt(id, text('x'))).keyVersion, 1, 'it serves again');
});

t.test('issueAgent with key patterns: the agent reaches those keys only', async (t) => {
  const mine = await activeKey('sdk-agent-mine');
  const other = await activeKey('sdk-agent-other');
  await alice.putAlias('alias/sdk-agent-target', mine);
  const issued = await alice.issueAgent({
    label: 'one-key bot',
    scopes: ['Encrypt', 'Get'],
    keys: ['alias:sdk-agent-target'],
    ttlSeconds: 600,
  });
  const listed = (await alice.listAgents()).agents.find((a) => a.agentId === issued.agentId);
  t.same(listed?.keys, ['alias:sdk-agent-target'], 'the agent list shows its patterns');
  const agent = new SvcClient({ server: service.url, credentials: { token: issued.jwt } });
  t.equal((await agent.encrypt('alias/sdk-agent-target', text('ok'))).keyVersion, 1);
  t.match(await apiError(t, () => agent.encrypt(other, text('no'))), { status: 403, code: 'PermissionDenied' });
  t.match(await apiError(t, () => agent.enableKey(mine)), { status: 403 }, 'agents never enable');
});

t.test('the policy: read, replace with its ETag, 412 when stale, 400 for bad bindings, history', async (t) => {
  const first = await alice.getPolicy();
  t.match(first, { version: 1, etag: /^"1-[0-9a-f]{16}"$/, roleBindings: ADMINS, subjectBindings: {} });
  const readers = { ...first.roleBindings, readers: ['Get'] };
  // The answer of getPolicy, changed, goes back as it is: only its two maps are sent.
  const second = await alice.putPolicy({ ...first, roleBindings: readers }, first.etag);
  t.match(second, { version: 2, roleBindings: readers });
  t.not(second.etag, first.etag);
  t.same(await alice.getPolicy(), second);

  const stale = await apiError(t, () => alice.putPolicy(second, first.etag));
  t.match(stale, { status: 412, code: 'PreconditionFailed' });
  const bad = await apiError(t, () =>
    alice.putPolicy({ roleBindings: { ...readers, x: ['Fly'] }, subjectBindings: {} }, second.etag),
  );
  t.match(bad, { status: 400, code: 'InvalidField', message: /unknown operation "Fly"/ });
  t.match(await apiError(t, () => deployer.putPolicy(second, second.etag)), { status: 403 }, 'Human only');
  t.equal((await alice.getPolicy()).version, 2, 'nothing else was stored');

  // No history endpoint: each version is one audit record of Administer on the resource policy.
  let versions: string[] = [];
  await until(async () => {
    const { records } = await alice.queryAudit({ key: 'policy', op: 'Administer', limit: 100 });
    versions = records.filter((r) => r.outcome === 'Success').map((r) => r.context['policy.version']!);
    return versions.length >= 2;
  }, 'two audited policy versions');
  t.same(versions, ['2', '1'], 'newest first');
});
