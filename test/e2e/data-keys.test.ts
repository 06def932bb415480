import t, { type Test } from 'tap';
import { ApiClient, b64 } from '../helpers/client.ts';
import { mcpClient } from '../helpers/mcp-client.ts';
import { startTestService } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

// bob and carol may use their own keys only; ops reads the audit trail; svc-a is a Service with its own keys.
const USE = ['Create', 'Get', 'Activate', 'Rotate', 'Encrypt', 'Decrypt'];
const svc = await startTestService({
  SVC_AUTH_KIND: 'hmac',
  SVC_AUTH_HMAC_SECRET: TEST_SECRET,
  SVC_POLICY_KIND: 'role-based',
  SVC_POLICY_ROLE_BINDINGS: JSON.stringify({
    team: { operations: USE, keys: ['owner:self'] },
    decrypters: ['Get', 'Decrypt'],
    auditors: ['Query'],
  }),
  SVC_POLICY_SUBJECT_BINDINGS: JSON.stringify({ 'svc-a': { operations: USE, keys: ['owner:self'] } }),
});
t.teardown(() => svc.stop());
const as = async (claims: Record<string, unknown>) =>
  new ApiClient(svc.url, { Authorization: `Bearer ${await mintToken(claims)}` });
const bob = await as({ sub: 'bob', svc_groups: ['team'] });
const carol = await as({ sub: 'carol', svc_groups: ['team'] });
const dora = await as({ sub: 'dora', svc_groups: ['decrypters'] });
const service = await as({ sub: 'svc-a', svc_kind: 'service', svc_tenant: 't1' });
const auditor = await as({ sub: 'ops', svc_groups: ['auditors'] });
const agentOf = async (parent: ApiClient, scopes: string[]) => {
  const issued = await parent.post('/v1/agents/issue', { label: scopes.join('-'), scopes, ttlSeconds: 600 });
  if (issued.status !== 200) throw new Error(`issue failed: ${issued.status} ${JSON.stringify(issued.body)}`);
  return {
    client: new ApiClient(svc.url, { Authorization: `Bearer ${issued.body.jwt}` }),
    id: issued.body.agentId as string,
  };
};
const recordsOf = async (keyId: string) =>
  (await auditor.get(`/v1/audit?key=${keyId}&limit=100`)).body.records as any[];

t.test(
  'data-key: a fresh key of the asked size, its ciphertext decrypts through /decrypt with the same context',
  async (t) => {
    const key = await bob.key({ name: 'envelope', algorithm: 'AES' });
    for (const [sizeBits, bytes] of [
      [undefined, 32],
      [128, 16],
      [192, 24],
      [256, 32],
    ] as const) {
      const res = await bob.post(`/v1/keys/${key}/data-key`, {
        ...(sizeBits ? { sizeBits } : {}),
        context: { table: 'orders' },
      });
      t.equal(res.status, 200, `sizeBits ${sizeBits ?? 'default'}`);
      t.match(res.body, { keyVersion: 1, algorithm: 'AesGcm256' });
      const dataKey = Buffer.from(res.body.plaintextBase64, 'base64');
      t.equal(dataKey.length, bytes, `${bytes} bytes`);
      const opened = await bob.post(`/v1/keys/${key}/decrypt`, {
        ciphertextBase64: res.body.ciphertextBase64,
        context: { table: 'orders' },
      });
      t.equal(opened.body.plaintextBase64, res.body.plaintextBase64, 'decrypt gives the data key back');
      const wrongContext = await bob.post(`/v1/keys/${key}/decrypt`, {
        ciphertextBase64: res.body.ciphertextBase64,
        context: { table: 'users' },
      });
      t.equal(wrongContext.body.error, 'DecryptionFailed', 'another context does not open it');
    }
    const a = await bob.post(`/v1/keys/${key}/data-key`, {});
    const b = await bob.post(`/v1/keys/${key}/data-key`, {});
    t.not(a.body.plaintextBase64, b.body.plaintextBase64, 'each call makes a new data key');

    const sealedOnly = await bob.post(`/v1/keys/${key}/data-key`, { plaintext: false });
    t.equal(sealedOnly.status, 200);
    t.notOk('plaintextBase64' in sealedOnly.body, 'plaintext:false answers the ciphertext only');
    t.equal(
      Buffer.from(
        (await bob.post(`/v1/keys/${key}/decrypt`, { ciphertextBase64: sealedOnly.body.ciphertextBase64 })).body
          .plaintextBase64,
        'base64',
      ).length,
      32,
    );

    const rows = (await recordsOf(key)).filter((r) => r.context.dataKey === 'true');
    t.equal(rows.length, 7, 'one Encrypt record per data-key call');
    t.match(
      rows.find((r) => r.context.plaintext === 'false'),
      { operation: 'Encrypt', outcome: 'Success', context: { sizeBits: '256', plaintext: 'false' } },
    );
    const trail = JSON.stringify(await recordsOf(key));
    t.notOk(
      trail.includes(a.body.plaintextBase64) || trail.includes(a.body.ciphertextBase64),
      'the audit trail never holds the data key or its ciphertext',
    );
  },
);

t.test(
  'data-key refusals: bad size, unknown field, wrong algorithm, wrong ' +
    'state, no Encrypt right, an agent without Encrypt',
  async (t) => {
    const key = await bob.key({ name: 'envelope-2', algorithm: 'AES' });
    for (const body of [{ sizeBits: 512 }, { sizeBits: '256' }, { plaintext: 'yes' }, { dekBase64: b64('x') }]) {
      const res = await bob.post(`/v1/keys/${key}/data-key`, body);
      t.equal(res.status, 400, JSON.stringify(body));
      if (body.sizeBits === 512) t.equal(res.body.message, 'sizeBits must be one of 128, 192, 256');
      t.notOk(res.body.plaintextBase64);
    }
    const hmac = await bob.key({ name: 'mac', algorithm: 'HMAC' });
    t.equal(
      (await bob.post(`/v1/keys/${hmac}/data-key`, {})).body.error,
      'InvalidField',
      'an HMAC key makes no data keys',
    );
    const preActive = await bob.key({ name: 'pre', algorithm: 'AES' }, false);
    t.equal((await bob.post(`/v1/keys/${preActive}/data-key`, {})).status, 409, 'a PreActive key makes no data keys');
    t.equal((await carol.post(`/v1/keys/${key}/data-key`, {})).status, 403, "carol may not use bob's key");
    t.equal((await dora.post(`/v1/keys/${key}/data-key`, {})).status, 403, 'a Decrypt-only caller makes no data keys');
    const decryptAgent = await agentOf(bob, ['Decrypt']);
    t.equal(
      (await decryptAgent.client.post(`/v1/keys/${key}/data-key`, {})).status,
      403,
      'an agent without the Encrypt scope is refused',
    );
    const encryptAgent = await agentOf(bob, ['Encrypt']);
    const made = await encryptAgent.client.post(`/v1/keys/${key}/data-key`, { plaintext: false });
    t.equal(made.status, 200, "an agent with Encrypt makes data keys under its parent's key");
  },
);

t.test('data-key and reencrypt by a Service under its own keys', async (t) => {
  const key = await service.key({ name: 'svc-envelope', algorithm: 'AES' });
  const made = await service.post(`/v1/keys/${key}/data-key`, { context: { app: 'billing' } });
  t.equal(made.status, 200);
  t.equal((await service.post(`/v1/keys/${key}/rotate`, {})).status, 200);
  const moved = await service.post(`/v1/keys/${key}/reencrypt`, {
    ciphertextBase64: made.body.ciphertextBase64,
    context: { app: 'billing' },
  });
  t.same(Object.keys(moved.body).sort(), ['ciphertextBase64', 'keyVersion', 'sourceKeyVersion']);
  t.match(moved.body, { keyVersion: 2, sourceKeyVersion: 1 });
  const opened = await service.post(`/v1/keys/${key}/decrypt`, {
    ciphertextBase64: moved.body.ciphertextBase64,
    context: { app: 'billing' },
  });
  t.same(
    opened.body,
    { plaintextBase64: made.body.plaintextBase64, keyVersion: 2 },
    'the moved ciphertext opens under version 2 with the same context',
  );
  const bobs = await bob.key({ name: 'not-svc', algorithm: 'AES' });
  const refused = await service.post(`/v1/keys/${key}/reencrypt`, {
    ciphertextBase64: made.body.ciphertextBase64,
    context: { app: 'billing' },
    destinationKeyId: bobs,
  });
  t.equal(refused.status, 403, "a Service may not encrypt under another owner's key");
});

t.test(
  'reencrypt: to the current version, to another key with another context; the record names both keys',
  async (t) => {
    const source = await bob.key({ name: 'old', algorithm: 'AES' });
    const destination = await bob.key({ name: 'new', algorithm: 'AES', sizeBits: 128 });
    const secret = b64('the plaintext that never leaves');
    const sealed = await bob.post(`/v1/keys/${source}/encrypt`, { plaintextBase64: secret, context: { tenant: 'a' } });
    t.equal((await bob.post(`/v1/keys/${source}/rotate`, {})).status, 200);

    const sameKey = await bob.post(`/v1/keys/${source}/reencrypt`, {
      ciphertextBase64: sealed.body.ciphertextBase64,
      context: { tenant: 'a' },
    });
    t.equal(sameKey.status, 200);
    t.same(
      Object.keys(sameKey.body).sort(),
      ['ciphertextBase64', 'keyVersion', 'sourceKeyVersion'],
      'no plaintext in the answer',
    );
    t.match(sameKey.body, { keyVersion: 2, sourceKeyVersion: 1 });
    t.equal(
      (
        await bob.post(`/v1/keys/${source}/decrypt`, {
          ciphertextBase64: sameKey.body.ciphertextBase64,
          context: { tenant: 'a' },
        })
      ).body.plaintextBase64,
      secret,
    );

    const moved = await bob.post(`/v1/keys/${source}/reencrypt`, {
      ciphertextBase64: sameKey.body.ciphertextBase64,
      context: { tenant: 'a' },
      destinationKeyId: destination,
      destinationContext: { tenant: 'b' },
    });
    t.equal(moved.status, 200);
    t.match(moved.body, { keyVersion: 1, sourceKeyVersion: 2 });
    t.equal(
      (
        await bob.post(`/v1/keys/${destination}/decrypt`, {
          ciphertextBase64: moved.body.ciphertextBase64,
          context: { tenant: 'b' },
        })
      ).body.plaintextBase64,
      secret,
      'opens under the destination with its context',
    );
    t.equal(
      (
        await bob.post(`/v1/keys/${destination}/decrypt`, {
          ciphertextBase64: moved.body.ciphertextBase64,
          context: { tenant: 'a' },
        })
      ).body.error,
      'DecryptionFailed',
      'not with the old context',
    );
    t.equal(
      (
        await bob.post(`/v1/keys/${source}/decrypt`, {
          ciphertextBase64: moved.body.ciphertextBase64,
          context: { tenant: 'b' },
        })
      ).body.error,
      'DecryptionFailed',
      'nor under the source key',
    );

    const row = (await recordsOf(source)).find(
      (r) => r.context.reencrypt === 'true' && r.context.destinationKeyId === destination,
    );
    t.match(
      row,
      {
        operation: 'Decrypt',
        outcome: 'Success',
        resource: source,
        principal: { subject: 'bob' },
        context: {
          destinationKeyId: destination,
          contextKeys: 'tenant',
          destinationContextKeys: 'tenant',
          sourceKeyVersion: '2',
          keyVersion: '1',
        },
      },
      'one record, naming the source as resource and the destination in its context',
    );
    t.notOk(JSON.stringify(row).includes(secret), 'and never the plaintext');
  },
);

t.test('reencrypt refusals: nothing decrypted is ever returned', async (t) => {
  const bobs = await bob.key({ name: 'bob-src', algorithm: 'AES' });
  const carols = await carol.key({ name: 'carol-dst', algorithm: 'AES' });
  const sealed = (await bob.post(`/v1/keys/${bobs}/encrypt`, { plaintextBase64: b64('s'), context: { a: '1' } })).body
    .ciphertextBase64;
  const body = (extra: Record<string, unknown> = {}) => ({ ciphertextBase64: sealed, context: { a: '1' }, ...extra });
  const onlyError = (t: Test, res: { status: number; body: any }, status: number, what: string) => {
    t.equal(res.status, status, what);
    t.same(Object.keys(res.body).sort(), ['error', 'message'], `${what}: an error and nothing else`);
  };

  onlyError(
    t,
    await bob.post(`/v1/keys/${bobs}/reencrypt`, body({ destinationKeyId: carols })),
    403,
    "bob may not encrypt under carol's key",
  );
  const refusedRow = (await recordsOf(bobs)).find(
    (r) => r.outcome === 'PermissionDenied' && r.context.destinationKeyId === carols,
  );
  t.ok(refusedRow, 'the refusal is audited on the source, naming the destination');
  onlyError(
    t,
    await carol.post(`/v1/keys/${bobs}/reencrypt`, body({ destinationKeyId: carols })),
    403,
    "carol may not decrypt under bob's key",
  );
  onlyError(
    t,
    await dora.post(`/v1/keys/${bobs}/reencrypt`, body()),
    403,
    'a caller with Decrypt but no Encrypt anywhere',
  );
  onlyError(
    t,
    await bob.post(`/v1/keys/${bobs}/reencrypt`, body({ destinationKeyId: '00000000-0000-4000-8000-000000000001' })),
    403,
    'an unknown destination is refused like a foreign one',
  );
  onlyError(
    t,
    await bob.post(`/v1/keys/${bobs}/reencrypt`, body({ destinationKeyId: 'not-a-uuid' })),
    403,
    'a malformed destination too',
  );
  onlyError(
    t,
    await bob.post(`/v1/keys/${bobs}/reencrypt`, body({ context: { a: '2' } })),
    400,
    'a wrong context is DecryptionFailed',
  );
  onlyError(t, await bob.post(`/v1/keys/${bobs}/reencrypt`, { context: {} }), 400, 'a missing ciphertext');
  onlyError(t, await bob.post(`/v1/keys/${bobs}/reencrypt`, body({ extra: 1 })), 400, 'an unknown field');

  const encryptOnly = await agentOf(bob, ['Encrypt']);
  onlyError(
    t,
    await encryptOnly.client.post(`/v1/keys/${bobs}/reencrypt`, body()),
    403,
    'an agent with Encrypt but not Decrypt cannot reencrypt',
  );
  const decryptOnly = await agentOf(bob, ['Decrypt']);
  onlyError(
    t,
    await decryptOnly.client.post(`/v1/keys/${bobs}/reencrypt`, body()),
    403,
    'an agent with Decrypt but not Encrypt cannot reencrypt',
  );
  const both = await agentOf(bob, ['Decrypt', 'Encrypt']);
  t.equal(
    (await both.client.post(`/v1/keys/${bobs}/reencrypt`, body())).status,
    200,
    "an agent with both re-encrypts under its parent's key",
  );
  onlyError(
    t,
    await both.client.post(`/v1/keys/${bobs}/reencrypt`, body({ destinationKeyId: carols })),
    403,
    'but never to a key its parent may not use',
  );
  const agentRows = (await recordsOf(bobs)).filter((r) => r.principal.kind === 'Agent');
  t.ok(
    agentRows.some((r) => r.principal.subject === decryptOnly.id && r.outcome === 'PermissionDenied'),
    "the agent's refusal is audited under the agent",
  );
});

t.test('the MCP door offers reencrypt only to a caller that may both decrypt and encrypt', async (t) => {
  const toolsOf = async (agent: { jwt: string }) => {
    const mcp = await mcpClient(svc.url, { Authorization: `Bearer ${agent.jwt}` });
    t.teardown(() => mcp.close());
    return (await mcp.listTools()).tools.map((x) => x.name);
  };
  const issue = async (scopes: string[]) =>
    (await bob.post('/v1/agents/issue', { label: `mcp-${scopes.join('-')}`, scopes, ttlSeconds: 600 })).body;
  const decryptOnly = await toolsOf(await issue(['Decrypt']));
  t.ok(decryptOnly.includes('decrypt'));
  t.notOk(decryptOnly.includes('reencrypt'), 'Decrypt alone: no reencrypt tool');
  const encryptOnly = await toolsOf(await issue(['Encrypt']));
  t.ok(encryptOnly.includes('generate_data_key'));
  t.notOk(encryptOnly.includes('reencrypt'), 'Encrypt alone: no reencrypt tool');
  t.ok((await toolsOf(await issue(['Decrypt', 'Encrypt']))).includes('reencrypt'), 'both: the tool is listed');
  const doraTools = await (async () => {
    const mcp = await mcpClient(svc.url, {
      Authorization: `Bearer ${await mintToken({ sub: 'dora', svc_groups: ['decrypters'] })}`,
    });
    t.teardown(() => mcp.close());
    return (await mcp.listTools()).tools.map((x) => x.name);
  })();
  t.notOk(doraTools.includes('reencrypt'), 'a Human whose bindings grant Decrypt but no Encrypt is not offered it');
});
