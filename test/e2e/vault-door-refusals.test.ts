import t from 'tap';
import { ownersService } from '../helpers/alias-owners.ts';
import { mintToken } from '../helpers/tokens.ts';
import { ApiClient } from '../helpers/client.ts';

/**
 * What the transit door refuses, in Vault's shape (`{errors: [...]}` with Vault's status) and never a
 * 5xx: no token, another owner's key, an agent beyond its scopes and keys, malformed and mistyped
 * bodies, oversized batches and bodies, unknown paths and methods. Each refusal by a known caller is
 * audited with door vault and the route's template.
 */

t.test('refusals of the transit door', async (t) => {
  const { svc, alice } = await ownersService();
  t.teardown(() => svc.stop());
  const auditor = new ApiClient(svc.url, { Authorization: `Bearer ${await mintToken({ sub: 'ops' })}` });
  const tokenOf = async (sub: string) => mintToken({ sub, svc_kind: 'human' }, { ttlSeconds: 3600 });
  const door = async (token: string | undefined, method: string, path: string, body?: unknown, raw?: string) => {
    const answer = await fetch(`${svc.url}/v1/transit/${path}`, {
      method,
      headers: { ...(token ? { 'X-Vault-Token': token } : {}), 'Content-Type': 'application/json' },
      ...(raw !== undefined ? { body: raw } : body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await answer.text();
    return { status: answer.status, body: text ? JSON.parse(text) : undefined, id: answer.headers.get('x-request-id') };
  };
  const records = async (requestId: string | null) =>
    ((await auditor.get('/v1/audit?limit=1000')).body.records as any[]).filter((r) => r.correlationId === requestId);
  const aliceToken = await tokenOf('alice');
  const malloryToken = await tokenOf('mallory');
  const made = await door(aliceToken, 'POST', 'keys/ledger', {});
  t.equal(made.status, 200, `alice creates her key: ${JSON.stringify(made.body)}`);
  const sealed = await door(aliceToken, 'POST', 'encrypt/ledger', { plaintext: 'aGk=' });
  t.equal(sealed.status, 200);

  t.test('a call is audited with door vault and the route; no plaintext or token in the trail', async (t) => {
    const [record] = await records(sealed.id);
    t.match(record, {
      operation: 'Encrypt',
      outcome: 'Success',
      principal: { subject: 'alice' },
      context: { door: 'vault', 'vault.path': 'encrypt/:name' },
    });
    const trail = JSON.stringify((await auditor.get('/v1/audit?limit=1000')).body);
    t.notOk(trail.includes(aliceToken), 'the token is nowhere in the audit trail');
  });

  t.test('no token, a bad token: 403 permission denied, in Vault shape', async (t) => {
    for (const token of [undefined, 'garbage', await mintToken({ sub: 'svc-system', svc_kind: 'human' })]) {
      const answer = await door(token, 'GET', 'keys/ledger');
      t.equal(answer.status, 403);
      t.match(answer.body, { errors: [/^permission denied/] });
    }
  });

  t.test("another owner's key: 403, audited as the operation's refusal", async (t) => {
    for (const [method, path, body] of [
      ['GET', 'keys/ledger'],
      ['POST', 'decrypt/ledger', { ciphertext: sealed.body.data.ciphertext }],
      ['POST', 'keys/ledger/rotate', {}],
      ['POST', 'keys/ledger/config', { deletion_allowed: true }],
      ['GET', 'export/encryption-key/ledger'],
    ] as const) {
      const answer = await door(malloryToken, method, path, body);
      t.equal(answer.status, 403, `${method} ${path}`);
      t.match(answer.body, { errors: [/^permission denied/] });
      const audited = await records(answer.id);
      t.ok(
        audited.some(
          (r) => r.principal.subject === 'mallory' && r.outcome === 'PermissionDenied' && r.context.door === 'vault',
        ),
        `${method} ${path}: the refusal is audited`,
      );
    }
    const after = await door(aliceToken, 'GET', 'keys/ledger');
    t.equal(after.body.data.deletion_allowed, false, "mallory's config changed nothing");
  });

  t.test('an agent: within its scopes and keys only; never export', async (t) => {
    const issued = await alice.post('/v1/agents/issue', {
      label: 'transit test',
      scopes: ['Encrypt', 'Decrypt', 'Get'],
      keys: ['alias:ledger'],
      ttlSeconds: 600,
    });
    t.equal(issued.status, 200, JSON.stringify(issued.body));
    const agent = issued.body.jwt;
    const inScope = await door(agent, 'POST', 'encrypt/ledger', { plaintext: 'aGk=' });
    t.equal(inScope.status, 200, `in scope: ${JSON.stringify(inScope.body)}`);
    t.equal((await door(agent, 'POST', 'keys/ledger/rotate', {})).status, 403, 'Rotate is outside its scopes');
    t.equal((await door(aliceToken, 'POST', 'keys/other', {})).status, 200);
    t.equal((await door(agent, 'POST', 'encrypt/other', { plaintext: 'aGk=' })).status, 403, 'another key');
    t.equal((await door(agent, 'POST', 'encrypt/agent-made', { plaintext: 'aGk=' })).status, 403, 'no upsert');
    t.equal((await door(agent, 'GET', 'export/encryption-key/ledger')).status, 403, 'no export');
  });

  t.test("bad input: 400 in Vault's shape, audited as the route's operation", async (t) => {
    const cases: Array<[string, string, unknown, string?]> = [
      ['POST', 'encrypt/ledger', undefined, '{not json'],
      ['POST', 'encrypt/ledger', undefined, '[1,2]'],
      ['POST', 'encrypt/ledger', { plaintext: 5 }],
      ['POST', 'encrypt/ledger', { plaintext: 'not base64!' }],
      ['POST', 'encrypt/ledger', { batch_input: 'x' }],
      ['POST', 'encrypt/ledger', { batch_input: Array.from({ length: 1001 }, () => ({ plaintext: 'aGk=' })) }],
      ['POST', 'decrypt/ledger', { ciphertext: 'vault:vX:abc' }],
      ['POST', 'decrypt/ledger', { ciphertext: 'vault:v1:AAAA' }],
      ['POST', 'keys/bad.name', {}],
      ['POST', 'keys/x2', { type: 'aes256-gcm96', derived: true }],
      ['POST', 'datakey/sideways/ledger', {}],
      ['POST', 'encrypt/ledger', { plaintext: 'aGk=', key_version: 'one' }],
      ['POST', 'keys/ledger/config', { exportable: 'maybe' }],
      ['POST', 'keys/ledger/config', { min_decryption_version: 5 }],
    ];
    for (const [method, path, body, raw] of cases) {
      const answer = await door(aliceToken, method, path, body, raw);
      const label = `${method} ${path} ${raw ?? JSON.stringify(body)?.slice(0, 60)}`;
      t.equal(answer.status, 400, `${label}: ${JSON.stringify(answer.body)}`);
      t.match(answer.body, { errors: [String] }, `${label}: Vault's shape`);
      t.ok((await records(answer.id)).length >= 1, `${label}: audited`);
    }
  });

  t.test('paths, methods and sizes', async (t) => {
    const unknown = await door(aliceToken, 'GET', 'backup/ledger');
    t.equal(unknown.status, 404);
    t.match(unknown.body, { errors: [/unsupported path/] });
    const wrongMethod = await door(aliceToken, 'DELETE', 'encrypt/ledger');
    t.equal(wrongMethod.status, 405);
    const notList = await door(aliceToken, 'GET', 'keys');
    t.equal(notList.status, 400, 'GET keys without list=true');
    const huge = await door(aliceToken, 'POST', 'encrypt/ledger', { plaintext: 'A'.repeat(2 * 1024 * 1024) });
    t.equal(huge.status, 413);
    t.match(huge.body, { errors: [/larger than/] });
    const put = await door(aliceToken, 'PUT', 'encrypt/ledger', { plaintext: 'aGk=' });
    t.equal(put.status, 200, 'PUT writes as POST does');
  });
});
