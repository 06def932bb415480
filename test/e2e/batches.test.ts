import t from 'tap';
import { parse } from 'yaml';
import { ApiClient, b64 } from '../helpers/client.ts';
import { startTestService } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

const svc = await startTestService({ SVC_AUTH_KIND: 'hmac', SVC_AUTH_HMAC_SECRET: TEST_SECRET });
t.teardown(() => svc.stop());
const as = async (claims: Record<string, unknown>) =>
  new ApiClient(svc.url, { Authorization: `Bearer ${await mintToken(claims)}` });
const alice = await as({ sub: 'alice' });
const service = await as({ sub: 'svc-batch', svc_kind: 'service' });
const recordsOf = async (keyId: string) => (await alice.get(`/v1/audit?key=${keyId}&limit=1000`)).body.records as any[];
const items = (n: number, make: (i: number) => Record<string, unknown>) => Array.from({ length: n }, (_, i) => make(i));

t.test(
  'encrypt and decrypt batches: results in order, a bad item fails alone, one audit record per batch',
  async (t) => {
    const key = await alice.key({ algorithm: 'AES' });
    const plaintexts = items(5, (i) => ({
      plaintextBase64: b64(`item ${i}`),
      ...(i % 2 ? { context: { row: String(i) } } : {}),
    }));
    const sealed = await alice.post(`/v1/keys/${key}/encrypt`, { items: plaintexts });
    t.equal(sealed.status, 200);
    t.equal(sealed.body.results.length, 5);
    for (const r of sealed.body.results)
      t.match(r, { ciphertextBase64: String, keyVersion: 1, algorithm: 'AesGcm256' });
    const one = await alice.post(`/v1/keys/${key}/decrypt`, {
      ciphertextBase64: sealed.body.results[1].ciphertextBase64,
      context: { row: '1' },
    });
    t.equal(
      Buffer.from(one.body.plaintextBase64, 'base64').toString(),
      'item 1',
      "a batch item's ciphertext opens through the single call",
    );

    const before = (await recordsOf(key)).length;
    const opened = await alice.post(`/v1/keys/${key}/decrypt`, {
      items: [
        { ciphertextBase64: sealed.body.results[0].ciphertextBase64 },
        { ciphertextBase64: sealed.body.results[1].ciphertextBase64, context: { row: '1' } },
        { ciphertextBase64: sealed.body.results[1].ciphertextBase64, context: { row: '2' } }, // the wrong context
        { ciphertextBase64: b64('not a ciphertext at all') },
        { ciphertextBase64: 'not base64!' },
        { ciphertextBase64: sealed.body.results[4].ciphertextBase64 },
      ],
    });
    t.equal(opened.status, 200, 'a batch with failed items is still 200');
    const [r0, r1, r2, r3, r4, r5] = opened.body.results;
    t.same(r0, { plaintextBase64: b64('item 0'), keyVersion: 1 });
    t.same(r1, { plaintextBase64: b64('item 1'), keyVersion: 1 });
    t.same(
      r2,
      { error: 'DecryptionFailed', message: 'the ciphertext could not be decrypted with this key and context' },
      'a wrong context fails that item only',
    );
    t.same(r3, r2, 'garbage fails the same way');
    t.same(
      r4,
      { error: 'InvalidField', message: 'items.4.ciphertextBase64 is not valid standard base64' },
      'the message names the item',
    );
    t.same(r5, { plaintextBase64: b64('item 4'), keyVersion: 1 });

    const rows = (await recordsOf(key)).slice(0, (await recordsOf(key)).length - before);
    t.equal(rows.length, 1, 'one audit record for the whole batch');
    t.match(rows[0], {
      operation: 'Decrypt',
      outcome: 'Success',
      principal: { subject: 'alice' },
      context: { 'batch.items': '6', 'batch.failed': '3', keyVersion: '1', contextKeys: 'row' },
    });
    t.ok(rows[0].context['risk.score'], 'the risk decision was taken (once) and stamped on it');
    const sealRow = (await recordsOf(key)).find((r) => r.operation === 'Encrypt' && r.context['batch.items']);
    t.match(sealRow, {
      context: { 'batch.items': '5', 'batch.failed': '0', plaintextLength: String(5 * 6), contextKeys: 'row' },
    });
    t.notOk(JSON.stringify(await recordsOf(key)).includes(b64('item 0')), 'no plaintext in the trail');
  },
);

t.test('sign and verify batches; an item with an algorithm the key lacks fails alone', async (t) => {
  const key = await alice.key({ algorithm: 'EdDSA' });
  const signed = await alice.post(`/v1/keys/${key}/sign`, {
    items: [
      { messageBase64: b64('a') },
      { messageBase64: b64('b'), algorithm: 'EcdsaSha256' },
      { messageBase64: b64('c') },
    ],
  });
  t.equal(signed.status, 200);
  t.match(signed.body.results[0], { algorithm: 'Ed25519', keyVersion: 1 });
  t.match(signed.body.results[1], { error: 'InvalidField', message: /EcdsaSha256 does not fit/ });
  const single = await alice.post(`/v1/keys/${key}/verify`, {
    messageBase64: b64('c'),
    signatureBase64: signed.body.results[2].signatureBase64,
  });
  t.same(
    single.body,
    { valid: true, algorithm: 'Ed25519', keyVersion: 1 },
    'a batch signature verifies through the single call',
  );
  const verified = await alice.post(`/v1/keys/${key}/verify`, {
    items: [
      { messageBase64: b64('a'), signatureBase64: signed.body.results[0].signatureBase64 },
      { messageBase64: b64('tampered'), signatureBase64: signed.body.results[0].signatureBase64 },
      { messageBase64: b64('c'), signatureBase64: signed.body.results[2].signatureBase64, keyVersion: 7 },
    ],
  });
  t.same(verified.body.results, [
    { valid: true, algorithm: 'Ed25519', keyVersion: 1 },
    { valid: false, algorithm: 'Ed25519' },
    { error: 'InvalidField', message: 'keyVersion must be between 1 and 1' },
  ]);
  const row = (await recordsOf(key)).find((r) => r.operation === 'Verify' && r.context['batch.items']);
  t.match(row, { outcome: 'Success', context: { 'batch.items': '3', 'batch.failed': '1', 'batch.invalid': '1' } });
  const aes = await alice.key({ algorithm: 'AES' });
  const refused = await alice.post(`/v1/keys/${aes}/sign`, { items: [{ messageBase64: b64('a') }] });
  t.equal(refused.body.error, 'InvalidField', 'a key that cannot sign refuses the whole batch, as the single call');
});

t.test('bad batches are 400 naming the item, and nothing is done', async (t) => {
  const key = await alice.key({ algorithm: 'AES' });
  const before = (await recordsOf(key)).length;
  const cases: Array<[unknown, string, RegExp]> = [
    [{ items: [] }, 'InvalidField', /items must NOT have fewer than 1 items/],
    [
      { items: items(1001, () => ({ plaintextBase64: b64('x') })) },
      'InvalidField',
      /items must NOT have more than 1000 items/,
    ],
    [
      {
        items: [
          { plaintextBase64: b64('x') },
          { plaintextBase64: b64('y') },
          { plaintextBase64: b64('z'), plaintext: 'z' },
        ],
      },
      'BadRequest',
      /items\.2 has unknown field "plaintext"/,
    ],
    [
      { items: [{ plaintextBase64: b64('x') }, {}] },
      'BadRequest',
      /items\.1 is missing required field "plaintextBase64"/,
    ],
    [{ items: [{ plaintextBase64: 7 }] }, 'BadRequest', /items\.0\.plaintextBase64 must be string/],
    [
      { items: [{ plaintextBase64: b64('x'), context: { a: 1 } }] },
      'BadRequest',
      /items\.0\.context\.a must be string/,
    ],
    [{ items: 'all of them' }, 'BadRequest', /items must be array/],
    [{ items: [{ plaintextBase64: b64('x') }], context: {} }, 'BadRequest', /request has unknown field "context"/],
    [
      { plaintextBase64: b64('x'), items: [{ plaintextBase64: b64('x') }] },
      'BadRequest',
      /request has unknown field "items"/,
    ],
  ];
  for (const [body, error, message] of cases) {
    const res = await alice.post(`/v1/keys/${key}/encrypt`, body);
    t.equal(res.status, 400, message.source);
    t.equal(res.body.error, error);
    t.match(res.body.message, message);
    t.notOk(res.body.results, 'no results at all');
  }
  const rows = (await recordsOf(key)).slice(0, (await recordsOf(key)).length - before);
  t.equal(rows.length, cases.length, 'each refused batch has one record');
  t.ok(
    rows.every((r) => r.outcome === 'BadRequest' || r.outcome === 'InvalidField'),
    'and each is refused',
  );
});

t.test("a key's state refuses a whole batch as it refuses the single call", async (t) => {
  const key = await alice.key({ algorithm: 'AES' });
  const sealed = (await alice.post(`/v1/keys/${key}/encrypt`, { items: [{ plaintextBase64: b64('x') }] })).body
    .results[0].ciphertextBase64;
  t.equal((await alice.post(`/v1/keys/${key}/revoke`, {})).status, 200);
  const refused = await alice.post(`/v1/keys/${key}/encrypt`, { items: [{ plaintextBase64: b64('x') }] });
  t.equal(refused.status, 409);
  t.equal(refused.body.error, 'IllegalOperation');
  t.same(
    (await alice.post(`/v1/keys/${key}/decrypt`, { items: [{ ciphertextBase64: sealed }] })).body.results,
    [{ plaintextBase64: b64('x'), keyVersion: 1 }],
    'a Deactivated key still decrypts',
  );
  t.equal(
    (
      await alice.post('/v1/keys/00000000-0000-4000-8000-000000000001/encrypt', {
        items: [{ plaintextBase64: b64('x') }],
      })
    ).status,
    404,
  );
});

t.test(
  'a trimmed version fails its items alone; a key scheduled for destruction refuses the whole batch',
  async (t) => {
    const key = await alice.key({ algorithm: 'AES' });
    const old = (await alice.post(`/v1/keys/${key}/encrypt`, { plaintextBase64: b64('v1') })).body.ciphertextBase64;
    t.equal((await alice.post(`/v1/keys/${key}/rotate`, {})).status, 200);
    const current = (await alice.post(`/v1/keys/${key}/encrypt`, { plaintextBase64: b64('v2') })).body.ciphertextBase64;
    t.equal((await alice.post(`/v1/keys/${key}/trim`, { minVersion: 2 })).status, 200);
    const opened = await alice.post(`/v1/keys/${key}/decrypt`, {
      items: [{ ciphertextBase64: old }, { ciphertextBase64: current }],
    });
    t.match(opened.body.results, [
      { error: 'IllegalOperation', message: /version 1 .* was trimmed/ },
      { plaintextBase64: b64('v2'), keyVersion: 2 },
    ]);

    t.equal((await alice.post(`/v1/keys/${key}/revoke`, {})).status, 200);
    t.equal((await alice.call('DELETE', `/v1/keys/${key}?waitingDays=3`)).status, 202);
    const refused = await alice.post(`/v1/keys/${key}/decrypt`, { items: [{ ciphertextBase64: current }] });
    t.equal(refused.status, 409);
    t.match(refused.body.message, /scheduled for destruction/);
  },
);

t.test('Services and agents: a batch needs the operation as the single call does', async (t) => {
  const key = await service.key({ algorithm: 'AES' });
  const sealed = await service.post(`/v1/keys/${key}/encrypt`, {
    items: [{ plaintextBase64: b64('s') }, { plaintextBase64: b64('t') }],
  });
  t.equal(sealed.status, 200, 'a Service encrypts a batch');
  const aliceKey = await alice.key({ algorithm: 'AES' });
  const issued = (await alice.post('/v1/agents/issue', { label: 'batcher', scopes: ['Encrypt'], ttlSeconds: 600 }))
    .body;
  const agent = new ApiClient(svc.url, { Authorization: `Bearer ${issued.jwt}` });
  const agentSealed = await agent.post(`/v1/keys/${aliceKey}/encrypt`, { items: [{ plaintextBase64: b64('a') }] });
  t.equal(agentSealed.status, 200, 'an agent with Encrypt encrypts a batch');
  const refused = await agent.post(`/v1/keys/${aliceKey}/decrypt`, {
    items: [{ ciphertextBase64: agentSealed.body.results[0].ciphertextBase64 }],
  });
  t.equal(refused.status, 403, 'an agent without Decrypt cannot decrypt a batch');
  t.same(Object.keys(refused.body).sort(), ['error', 'message']);
  const row = (await recordsOf(aliceKey)).find((r) => r.principal.kind === 'Agent' && r.operation === 'Decrypt');
  t.match(row, { outcome: 'PermissionDenied', principal: { subject: issued.agentId } });
});

t.test('a long batch does not hold the node: other calls are answered while it runs', async (t) => {
  const rsa = await alice.key({ algorithm: 'RSA', sizeBits: 2048 });
  const aes = await alice.key({ algorithm: 'AES' });
  let done = false;
  const batch = alice
    .post(`/v1/keys/${rsa}/sign`, { items: items(1000, (i) => ({ messageBase64: b64(`m${i}`) })) })
    .finally(() => (done = true));
  let answeredMeanwhile = 0;
  while (!done) {
    const res = await alice.get(`/v1/keys/${aes}`);
    if (res.status === 200 && !done) answeredMeanwhile++;
  }
  const signed = await batch;
  t.equal(signed.status, 200);
  t.equal(signed.body.results.filter((r: any) => r.signatureBase64).length, 1000, 'every item signed');
  t.ok(answeredMeanwhile >= 5, `${answeredMeanwhile} other calls answered while 1000 RSA signatures ran`);
});

t.test('a key compromised while a long batch runs: the remaining items are refused', async (t) => {
  // A caller of its own: the batch of 1000 signatures before this one spent most of alice's rate-limit burst.
  const dora = await as({ sub: 'dora' });
  const rsa = await dora.key({ algorithm: 'RSA', sizeBits: 2048 });
  const aes = await dora.key({ algorithm: 'AES' });
  // One signature first, so the batch finds the key's material ready and starts signing at once.
  t.equal((await dora.post(`/v1/keys/${rsa}/sign`, { messageBase64: b64('warm') })).status, 200);
  let done = false;
  const batch = dora
    .post(`/v1/keys/${rsa}/sign`, { items: items(1000, (i) => ({ messageBase64: b64(`m${i}`) })) })
    .finally(() => (done = true));
  // Answers to other calls while the batch is in flight: it has started, and yields between items.
  for (let answered = 0; answered < 3; ) if ((await dora.get(`/v1/keys/${aes}`)).status === 200) answered++;
  t.notOk(done, 'the batch is still running');
  t.equal((await dora.post(`/v1/keys/${rsa}/compromise`, { reason: 'leaked mid-batch' })).status, 200);
  const signed = await batch;
  t.equal(signed.status, 200);
  const results = signed.body.results as any[];
  const firstRefused = results.findIndex((r) => r.error);
  t.ok(firstRefused > 0 && firstRefused < 1000, `items signed before the compromise: ${firstRefused}`);
  t.ok(
    results.slice(firstRefused).every((r) => r.error === 'IllegalOperation' && /Compromised/.test(r.message)),
    'every item after it is refused, naming the state',
  );
  const row = (await recordsOf(rsa)).find((r) => r.operation === 'Sign' && r.context['batch.items']);
  t.equal(row.context['batch.failed'], String(1000 - firstRefused));
});

t.test('the OpenAPI document describes both body shapes and both answers', async (t) => {
  const doc = parse(await (await fetch(`${svc.url}/docs/docs.yaml`)).text());
  for (const [path, name] of [
    ['encrypt', 'Encrypt'],
    ['decrypt', 'Decrypt'],
    ['sign', 'Sign'],
    ['verify', 'Verify'],
  ]) {
    const op = doc.paths[`/v1/keys/{id}/${path}`].post;
    t.same(
      op.requestBody.content['application/json'].schema,
      {
        oneOf: [{ $ref: `#/components/schemas/${name}Request` }, { $ref: `#/components/schemas/${name}BatchRequest` }],
      },
      `${path} request`,
    );
    t.same(
      op.responses['200'].content['application/json'].schema,
      {
        oneOf: [
          { $ref: `#/components/schemas/${name}Response` },
          { $ref: `#/components/schemas/${name}BatchResponse` },
        ],
      },
      `${path} answer`,
    );
    const batch = doc.components.schemas[`${name}BatchRequest`];
    t.match(batch, {
      required: ['items'],
      properties: {
        items: { type: 'array', minItems: 1, maxItems: 1000, items: { $ref: `#/components/schemas/${name}Request` } },
      },
    });
    t.same(doc.components.schemas[`${name}BatchResponse`].properties.results.items.anyOf.at(-1), {
      $ref: '#/components/schemas/BatchItemError',
    });
  }
  t.match(doc.paths['/v1/keys/{id}/data-key'].post.requestBody.content['application/json'].schema, {
    $ref: '#/components/schemas/GenerateDataKeyRequest',
  });
  t.match(doc.paths['/v1/keys/{id}/reencrypt'].post, { operationId: 'reencrypt', 'x-svc-operation': 'Decrypt' });
});

t.test('the rate limit counts items: a batch larger than what is left is 429', async (t) => {
  const limited = await startTestService({ SVC_RATE_LIMIT_RPS: '1', SVC_RATE_LIMIT_BURST: '10' });
  t.teardown(() => limited.stop());
  const key = await limited.client('owner').key({ algorithm: 'AES' });
  const batch = (n: number) => ({ items: items(n, () => ({ plaintextBase64: b64('x') })) });
  const carl = limited.client('carl');
  t.equal((await carl.post(`/v1/keys/${key}/encrypt`, batch(8))).status, 200, '8 of a burst of 10');
  const over = await carl.post(`/v1/keys/${key}/encrypt`, batch(5));
  t.equal(over.status, 429, 'then 5 items do not fit in what is left');
  t.match(
    over.body.message,
    /carl is over its rate limit of 1 requests per second \(burst 10\) \(this call counts as 5 calls\)/,
  );
  t.ok(Number(over.headers.get('retry-after')) >= 2, 'Retry-After covers the missing items');
  t.equal((await carl.post(`/v1/keys/${key}/encrypt`, batch(2))).status, 200, 'but 2 do');

  // A batch larger than the burst passes only on a full bucket, and leaves it in debt.
  const dana = limited.client('dana');
  t.equal((await dana.post(`/v1/keys/${key}/encrypt`, batch(15))).status, 200, '15 items on a full bucket of 10');
  t.equal(
    (await dana.post(`/v1/keys/${key}/encrypt`, { plaintextBase64: b64('x') })).status,
    429,
    'then even one call waits for the debt',
  );
  const rows = (await limited.client('auditor').get('/v1/audit?actor=carl&limit=10')).body.records;
  t.match(
    rows.find((r: any) => r.outcome === 'TooManyRequests'),
    { operation: 'Encrypt' },
    'the refused batch is audited',
  );
});
