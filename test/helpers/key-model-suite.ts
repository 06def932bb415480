import { randomUUID } from 'node:crypto';
import type { Test } from 'tap';
import { b64 } from './client.ts';

/** A node's HTTP API as the suite needs it (an ApiClient, or a connection held to one worker). */
export interface ModelNode {
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
}

const aliasPath = (alias: string) => `/v1/aliases/${encodeURIComponent(alias)}`;
const keyPath = (idOrAlias: string) => `/v1/keys/${encodeURIComponent(idOrAlias)}`;

async function activeKey(node: ModelNode, spec: Record<string, unknown> = {}): Promise<string> {
  const created = await node.call('POST', '/v1/keys', {
    spec: { name: `km-${randomUUID()}`, algorithm: 'AES', ...spec },
  });
  if (created.status !== 201) throw new Error(`create answered ${created.status}: ${JSON.stringify(created.body)}`);
  const activated = await node.call('POST', `/v1/keys/${created.body.id}/activate`);
  if (activated.status !== 200) throw new Error(`activate answered ${activated.status}`);
  return created.body.id;
}

/**
 * The key model an operator expects (aliases, tags, the reversible disable), driven through two nodes
 * that share one journal (`a` and `b` may be one node where the journal cannot be shared).
 */
export function keyModelSuite(t: Test, a: ModelNode, b: ModelNode): void {
  t.test('of concurrent creates of one alias on two nodes, one wins and the other is 409', async (t) => {
    const k1 = await activeKey(a);
    const k2 = await activeKey(b);
    for (let round = 0; round < 5; round++) {
      const alias = `alias/race-${randomUUID()}`;
      const answers = await Promise.all([
        a.call('PUT', aliasPath(alias), { keyId: k1, createOnly: true }),
        b.call('PUT', aliasPath(alias), { keyId: k2, createOnly: true }),
      ]);
      t.same(answers.map((r) => r.status).sort(), [200, 409], `round ${round}: one 200, one 409`);
      const loser = answers.find((r) => r.status === 409)!;
      t.equal(loser.body.error, 'IllegalOperation');
      t.match(loser.body.message, /already names a key/);
      const winner = answers.find((r) => r.status === 200)!.body.keyId;
      const seen = await a.call('GET', `/v1/aliases?keyId=${winner}`);
      t.ok(
        seen.body.aliases.some((x: any) => x.name === alias),
        'the alias names the winner',
      );
      const other = winner === k1 ? k2 : k1;
      const none = await b.call('GET', `/v1/aliases?keyId=${other}`);
      t.notOk(
        none.body.aliases.some((x: any) => x.name === alias),
        "and not the loser's key",
      );
    }
  });

  t.test(
    'an alias moved while callers encrypt through it: each call uses one key and is audited with it',
    async (t) => {
      const k1 = await activeKey(a);
      const k2 = await activeKey(a);
      const alias = `alias/moving-${randomUUID()}`;
      t.equal((await a.call('PUT', aliasPath(alias), { keyId: k1 })).status, 200);
      const calls = 40;
      const sealed: string[] = [];
      const encrypts = (async () => {
        for (let i = 0; i < calls; i++) {
          const r = await b.call('POST', `${keyPath(alias)}/encrypt`, { plaintextBase64: b64(`row ${i}`) });
          if (r.status !== 200) throw new Error(`encrypt ${i} answered ${r.status}: ${JSON.stringify(r.body)}`);
          sealed.push(r.body.ciphertextBase64);
        }
      })();
      while (sealed.length < calls / 4) await new Promise((r) => setImmediate(r));
      const moved = await a.call('PUT', aliasPath(alias), { keyId: k2 });
      t.equal(moved.status, 200, 'moved');
      t.equal(moved.body.previousKeyId, k1, 'the move names the key it left');
      await encrypts;
      const under: Record<string, number> = { [k1]: 0, [k2]: 0 };
      for (const [i, ciphertextBase64] of sealed.entries()) {
        const opened = await Promise.all(
          [k1, k2].map((k) => a.call('POST', `/v1/keys/${k}/decrypt`, { ciphertextBase64 })),
        );
        const ok = opened.filter((r) => r.status === 200);
        if (ok.length !== 1) t.fail(`ciphertext ${i} opens under ${ok.length} keys`);
        under[opened[0]!.status === 200 ? k1 : k2]!++;
      }
      t.ok(
        under[k1]! > 0 && under[k2]! > 0,
        `calls before the move used the first key, after it the second (${JSON.stringify(Object.values(under))})`,
      );
      for (const k of [k1, k2]) {
        const trail = (await a.call('GET', `/v1/audit?key=${k}&limit=1000`)).body.records.filter(
          (r: any) => r.operation === 'Encrypt' && r.context?.alias === alias,
        );
        t.equal(
          trail.length,
          under[k],
          `every encrypt under ${k === k1 ? 'the first' : 'the second'} key is audited with it and the alias`,
        );
      }
    },
  );

  t.test('the alias is accepted wherever a key id is, and shown with the key', async (t) => {
    const k = await activeKey(a);
    const other = await activeKey(a);
    const alias = `alias/team/app-${randomUUID()}`;
    const otherAlias = `alias/dest-${randomUUID()}`;
    t.equal((await a.call('PUT', aliasPath(alias), { keyId: k })).status, 200);
    t.equal((await a.call('PUT', aliasPath(otherAlias), { keyId: other })).status, 200);
    const got = await b.call('GET', keyPath(alias));
    t.equal(got.status, 200);
    t.equal(got.body.id, k, 'GET by alias answers the key');
    t.same(got.body.aliases, [alias], 'ManagedKey shows its aliases');
    const sealed = await b.call('POST', `${keyPath(alias)}/encrypt`, { plaintextBase64: b64('hello') });
    const moved = await b.call('POST', `${keyPath(alias)}/reencrypt`, {
      ciphertextBase64: sealed.body.ciphertextBase64,
      destinationKeyId: otherAlias,
    });
    t.equal(moved.status, 200, 'a body field takes an alias too (re-encryption destination)');
    const opened = await a.call('POST', `/v1/keys/${other}/decrypt`, { ciphertextBase64: moved.body.ciphertextBase64 });
    t.equal(Buffer.from(opened.body.plaintextBase64, 'base64').toString(), 'hello');
    const unknown = await a.call('GET', keyPath(`alias/none-${randomUUID()}`));
    t.equal(unknown.status, 404, 'an alias naming no key is 404 like an unknown id');
    const deleted = await b.call('DELETE', aliasPath(alias));
    t.same(deleted.body, { name: alias, keyId: k });
    t.equal((await a.call('GET', keyPath(alias))).status, 404, 'a deleted alias names nothing, on either node');
    t.equal((await a.call('DELETE', aliasPath(alias))).status, 404, 'deleting it again is 404');
  });

  t.test('disable on one node is obeyed on the other, and enable restores the key', async (t) => {
    const k = await activeKey(a, { exportable: true });
    const sealed = await b.call('POST', `/v1/keys/${k}/encrypt`, { plaintextBase64: b64('before') });
    const disabled = await a.call('POST', `/v1/keys/${k}/disable`, { reason: 'checking a leak' });
    t.equal(disabled.status, 200);
    t.match(disabled.body, { id: k, state: 'Active', enabled: false, disabledReason: 'checking a leak' });
    for (const [what, call] of [
      ['encrypt', () => b.call('POST', `/v1/keys/${k}/encrypt`, { plaintextBase64: b64('x') })],
      ['decrypt', () => b.call('POST', `/v1/keys/${k}/decrypt`, { ciphertextBase64: sealed.body.ciphertextBase64 })],
      ['export', () => b.call('POST', `/v1/keys/${k}/export`, {})],
      ['data key', () => b.call('POST', `/v1/keys/${k}/data-key`, {})],
    ] as const) {
      const refused = await call();
      t.equal(refused.status, 409, `${what} on the other node: 409`);
      t.match(refused.body.message, /disabled/, `${what}: the answer says disabled`);
    }
    const seen = await b.call('GET', `/v1/keys/${k}`);
    t.match(seen.body, { state: 'Active', enabled: false }, 'the key keeps its state');
    const again = await b.call('POST', `/v1/keys/${k}/disable`, {});
    t.equal(again.status, 200, 'disabling a disabled key changes nothing');
    t.equal((await b.call('POST', `/v1/keys/${k}/enable`)).status, 200, 'a Human enables it on the other node');
    const opened = await a.call('POST', `/v1/keys/${k}/decrypt`, { ciphertextBase64: sealed.body.ciphertextBase64 });
    t.equal(opened.status, 200, 'and it serves again on the first');
    t.equal((await a.call('GET', `/v1/keys/${k}`)).body.enabled, true);
    const trail = (await a.call('GET', `/v1/audit?key=${k}&limit=100`)).body.records.map((r: any) => r.operation);
    t.ok(trail.includes('Disable') && trail.includes('Enable'), 'both audited');
  });

  t.test('tags at creation and later; Locate by tag on the other node', async (t) => {
    const team = `team-${randomUUID()}`;
    const prod = await activeKey(a, { tags: { team, env: 'prod' } });
    const dev = await activeKey(a, { tags: { team, env: 'dev' } });
    const byTeam = await b.call('GET', `/v1/keys?tag=${encodeURIComponent(`team:${team}`)}`);
    t.same(byTeam.body.keys.map((k: any) => k.id).sort(), [prod, dev].sort(), 'tag=team finds both');
    const both = await b.call('GET', `/v1/keys?tag=${encodeURIComponent(`team:${team}`)}&tag=env:prod`);
    t.same(
      both.body.keys.map((k: any) => k.id),
      [prod],
      'every tag filter must match',
    );
    t.same(both.body.keys[0].tags, { team, env: 'prod' }, 'ManagedKey shows the tags');
    const set = await a.call('PUT', `/v1/keys/${dev}/tags`, { tags: { env: 'prod', owner: 'ops' } });
    t.same(set.body.tags, { team, env: 'prod', owner: 'ops' }, 'PUT merges');
    const after = await b.call('GET', `/v1/keys?tag=${encodeURIComponent(`team:${team}`)}&tag=env:prod`);
    t.same(after.body.keys.map((k: any) => k.id).sort(), [prod, dev].sort(), 'Locate follows the change');
    const removed = await b.call('DELETE', `/v1/keys/${dev}/tags?keys=owner,env`);
    t.same(removed.body.tags, { team }, 'DELETE removes the named tags');
    const gone = await a.call('GET', `/v1/keys?tag=${encodeURIComponent(`team:${team}`)}&tag=env:prod`);
    t.same(
      gone.body.keys.map((k: any) => k.id),
      [prod],
    );
  });

  t.test('bad input answers a clear 4xx and changes nothing', async (t) => {
    const k = await activeKey(a, { tags: { keep: 'me' } });
    const other = await activeKey(a);
    const alias = `alias/taken-${randomUUID()}`;
    t.equal((await a.call('PUT', aliasPath(alias), { keyId: k })).status, 200);
    const taken = await b.call('PUT', aliasPath(alias), { keyId: other, createOnly: true });
    t.equal(taken.status, 409, 'a taken alias (createOnly)');
    for (const bad of [
      'alias/',
      'alias/has space',
      'alias/aws/mine',
      `alias/${'x'.repeat(251)}`,
      'payments',
      'alias/é',
    ]) {
      const r = await a.call('PUT', aliasPath(bad), { keyId: other });
      t.equal(r.status, 400, `malformed alias ${JSON.stringify(bad.slice(0, 20))}: 400`);
      t.equal(r.body.error, 'InvalidField');
    }
    const doomed = await activeKey(a);
    const doomedAlias = `alias/doomed-${randomUUID()}`;
    t.equal((await a.call('PUT', aliasPath(doomedAlias), { keyId: doomed })).status, 200);
    t.equal((await a.call('POST', `/v1/keys/${doomed}/revoke`, {})).status, 200);
    t.equal((await a.call('DELETE', `/v1/keys/${doomed}`)).status, 200);
    t.equal((await b.call('GET', keyPath(doomedAlias))).status, 404, 'a destroyed key loses its aliases');
    const onDestroyed = await b.call('PUT', aliasPath(`alias/late-${randomUUID()}`), { keyId: doomed });
    t.equal(onDestroyed.status, 409, 'an alias of a destroyed key: 409');
    t.match(onDestroyed.body.message, /Destroyed/);
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`t${i}`, 'v']));
    const created = await a.call('POST', '/v1/keys', {
      spec: { name: `km-${randomUUID()}`, algorithm: 'AES', tags: many },
    });
    t.equal(created.status, 400, '51 tags at creation: 400');
    t.match(created.body.message, /at most 50 tags/);
    t.equal((await a.call('PUT', `/v1/keys/${k}/tags`, { tags: many })).status, 400, '51 tags later: 400');
    const long = await a.call('PUT', `/v1/keys/${k}/tags`, { tags: { ['k'.repeat(129)]: 'v' } });
    t.equal(long.status, 400, 'a tag key of 129 characters: 400');
    t.match(long.body.message, /1\.\.128 characters/);
    const control = await a.call('PUT', `/v1/keys/${k}/tags`, { tags: { ok: 'line\nbreak' } });
    t.equal(control.status, 400, 'a tag value with a control character: 400');
    t.same((await b.call('GET', `/v1/keys/${k}`)).body.tags, { keep: 'me' }, 'the tags are unchanged');
    t.same(
      (await b.call('GET', `/v1/aliases?keyId=${other}`)).body.aliases,
      [],
      'and no refused alias landed on the other key',
    );
  });
}
