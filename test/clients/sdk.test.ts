import { randomBytes } from 'node:crypto';
import t, { type Test } from 'tap';
import { SvcApiError, SvcClient } from '../../clients/sdk/index.ts';
import { startFaultProxy } from '../helpers/fault-proxy.ts';
import { startTestService } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

const service = await startTestService({ SVC_AUTH_KIND: 'hmac', SVC_AUTH_HMAC_SECRET: TEST_SECRET });
t.teardown(() => service.stop());
const proxy = await startFaultProxy(service.url);
t.teardown(() => proxy.close());
const aliceToken = await mintToken({ sub: 'alice' }, { ttlSeconds: 3600 });
const fastRetry = { initialBackoffMs: 5, maxBackoffMs: 20 };
const alice = new SvcClient({ server: proxy.url, credentials: { token: aliceToken }, retry: fastRetry });
const text = (s: string) => new TextEncoder().encode(s);

/** Runs fn and returns the SvcApiError it throws (failing the test if it throws anything else or nothing). */
async function apiError(t: Test, fn: () => Promise<unknown>): Promise<SvcApiError> {
  try {
    await fn();
  } catch (err) {
    t.type(err, SvcApiError);
    return err as SvcApiError;
  }
  throw new Error('expected an SvcApiError');
}

t.test('destroy with a waiting period, cancel, and trim', async (t) => {
  const aes = await alice.createKey({ name: 'sdk-retire', algorithm: 'AES' });
  await alice.activateKey(aes.id);
  const old = await alice.encrypt(aes.id, text('v1'));
  await alice.rotateKey(aes.id);
  t.same(await alice.trimKey(aes.id, 2), {
    id: aes.id,
    state: 'Active',
    currentVersion: 2,
    minVersion: 2,
    erasure: 'complete',
  });
  t.match(await apiError(t, () => alice.decrypt(aes.id, old.ciphertext)), {
    status: 409,
    code: 'IllegalOperation',
    message: /version 1 .* was trimmed/,
  });
  t.match(await apiError(t, () => alice.trimKey(aes.id, 3)), { status: 400, code: 'InvalidField' });
  await alice.revokeKey(aes.id);
  const scheduled = await alice.destroyKey(aes.id, { waitingDays: 10 });
  t.match(scheduled, { id: aes.id, state: 'Deactivated', destroyAt: /^\d{4}-/ });
  t.equal((await alice.getKey(aes.id)).destroyAt, scheduled.destroyAt);
  t.match(await alice.cancelDestroy(aes.id), {
    id: aes.id,
    state: 'Deactivated',
    cancelledDestroyAt: scheduled.destroyAt,
  });
  t.match(await apiError(t, () => alice.destroyKey(aes.id, { waitingDays: 31 })), { status: 400 });
  t.match(await alice.destroyKey(aes.id, { waitingDays: 0 }), { state: 'Destroyed', erasure: 'complete' });
});

t.test('every endpoint, once, with bytes in and out as Uint8Array', async (t) => {
  t.same(await alice.health(), { status: 'ok' });
  const signer = await alice.createKey({ name: 'sdk-signer', algorithm: 'EdDSA' });
  t.match(signer, { state: 'PreActive', currentVersion: 1, spec: { algorithm: 'EdDSA', curve: 'Ed25519' } });
  t.equal((await alice.activateKey(signer.id)).state, 'Active');
  t.equal((await alice.getKey(signer.id)).state, 'Active');
  const signed = await alice.sign(signer.id, text('hello'));
  t.type(signed.signature, Uint8Array);
  t.equal(signed.signature.length, 64);
  t.match(await alice.verify(signer.id, text('hello'), signed.signature), { valid: true, keyVersion: 1 });
  t.match(await alice.verify(signer.id, text('hellO'), signed.signature), { valid: false });
  t.match((await alice.publicKey(signer.id, 1)).publicKeyPem, /^-----BEGIN PUBLIC KEY-----/);
  t.match(await alice.rotateKey(signer.id, { reason: 'sdk test' }), { previousVersion: 1, currentVersion: 2 });
  t.equal((await alice.revokeKey(signer.id, 'done')).state, 'Deactivated');
  t.match(await alice.compromiseKey(signer.id, 'test'), { state: 'Compromised', reason: 'test' });
  t.equal((await alice.destroyKey(signer.id)).state, 'Destroyed');

  const aes = await alice.createKey({ name: 'sdk-aes', algorithm: 'AES', sizeBits: 256 });
  await alice.activateKey(aes.id);
  const plaintext = randomBytes(3000);
  const sealed = await alice.encrypt(aes.id, plaintext, { tenant: 'acme' });
  t.match(sealed, { keyVersion: 1, algorithm: 'AesGcm256' });
  t.same(Buffer.from((await alice.decrypt(aes.id, sealed.ciphertext, { tenant: 'acme' })).plaintext), plaintext);
  const dek = randomBytes(32);
  const wrapped = await alice.wrap(aes.id, dek);
  t.same(Buffer.from((await alice.unwrap(aes.id, wrapped.wrappedDek)).dek), dek);

  const agent = await alice.issueAgent({ label: 'sdk-agent', scopes: ['Get'], ttlSeconds: 300 });
  t.match(agent, { agentId: /^agent-/, jti: /^[0-9a-f-]{36}$/ });
  t.same(await alice.revokeToken({ jti: agent.jti, expiresAt: agent.expiresAt }), { jti: agent.jti, revoked: true });
  const listed = await alice.listAgents();
  // Revoking an agent's token by its jti revokes the agent in the registry.
  t.match(
    listed.agents.find((a) => a.agentId === agent.agentId),
    { parent: 'alice', purpose: 'sdk-agent', scopes: ['Get'], revoked: true },
  );
  t.match(await alice.revokeAgent(agent.agentId), { agentId: agent.agentId, revoked: true });
  t.equal((await alice.listAgents({ parent: 'alice', limit: 1 })).agents.length, 1);

  const page = await alice.queryAudit({ key: aes.id, op: 'Encrypt', limit: 10 });
  t.match(page, { limit: 10, offset: 0, hasMore: false });
  t.match(page.records[0], { operation: 'Encrypt', resource: aes.id, principal: { subject: 'alice', kind: 'Human' } });

  const scan = await alice.advisorScan({ lookbackDays: 7, top: 3 });
  t.match(scan, { truncated: false, window: { since: String }, riskiestAgents: Array, unusedKeys: Array });
  const explain = await alice.advisorExplain(agent.agentId, { maxEvents: 50 });
  t.match(explain, { agentId: agent.agentId, narration: { provider: 'none', status: 'off' }, summary: String });
  t.match(await alice.verifyAudit(), { valid: true });
  t.ok(proxy.seen.includes('GET /v1/advisor/scan?lookbackDays=7&top=3'));
  t.ok(proxy.seen.includes(`GET /v1/advisor/explain/${agent.agentId}?maxEvents=50`));
});

t.test('error codes come back as SvcApiError with code, status, message and request id', async (t) => {
  const key = await alice.createKey({ name: 'errors', algorithm: 'AES' });
  const cases: Array<[string, number, () => Promise<unknown>]> = [
    ['KeyNotFound', 404, () => alice.getKey('7d0c9a3e-1111-4222-8333-944455556666')],
    ['IllegalOperation', 409, () => alice.encrypt(key.id, text('not active yet'))],
    ['InvalidField', 400, () => alice.createKey({ name: 'x', algorithm: 'Rot13' as 'AES' })],
    [
      'Unauthorized',
      401,
      () => new SvcClient({ server: proxy.url, credentials: { token: 'not-a-jwt' } }).getKey(key.id),
    ],
  ];
  for (const [code, status, call] of cases) {
    const err = await apiError(t, call);
    t.match(err, { code, status, name: 'SvcApiError' }, code);
    t.match(err.message, /\S/);
    t.match(err.requestId, /^[0-9a-f-]{36}$/);
  }
  await alice.activateKey(key.id);
  const sealed = await alice.encrypt(key.id, text('secret'), { a: '1' });
  t.match(await apiError(t, () => alice.decrypt(key.id, sealed.ciphertext, { a: '2' })), {
    code: 'DecryptionFailed',
    status: 400,
  });
  const agent = await alice.issueAgent({ label: 'reader', scopes: ['Get'], ttlSeconds: 300 });
  const asAgent = new SvcClient({ server: proxy.url, credentials: { token: agent.jwt } });
  t.match(await apiError(t, () => asAgent.encrypt(key.id, text('x'))), { code: 'PermissionDenied', status: 403 });
});

t.test('a 503 on a safe call is retried with the same request id; a 409 is not', async (t) => {
  const key = await alice.createKey({ name: 'retry', algorithm: 'AES' });
  const before = proxy.seen.length;
  proxy.inject(new RegExp(`^GET /v1/keys/${key.id}$`), '503', 2);
  t.equal((await alice.getKey(key.id)).id, key.id, 'the third attempt succeeds');
  t.equal(proxy.seen.length - before, 3, 'two 503s, then the answer');
  t.equal(new Set(proxy.requestIds.slice(before)).size, 1, 'every attempt carries the same X-Request-Id');

  await alice.activateKey(key.id);
  const mark = proxy.seen.length;
  t.match(await apiError(t, () => alice.activateKey(key.id)), { code: 'IllegalOperation', status: 409 });
  t.equal(proxy.seen.length - mark, 1, 'a 409 is sent once');

  const sealed = await alice.encrypt(key.id, text('retry me'));
  proxy.inject(/\/decrypt$/, 'drop', 1);
  t.equal(
    new TextDecoder().decode((await alice.decrypt(key.id, sealed.ciphertext)).plaintext),
    'retry me',
    'a dropped connection is retried for decrypt',
  );

  const encrypts = proxy.seen.length;
  proxy.inject(/\/encrypt$/, '503', 1);
  t.match(await apiError(t, () => alice.encrypt(key.id, text('once'))), { code: 'ServiceUnavailable', status: 503 });
  t.equal(proxy.seen.length - encrypts, 1, 'encrypt counts toward rotation, so the SDK never repeats it');

  proxy.inject(new RegExp(`^GET /v1/keys/${key.id}$`), '503', 4);
  const reads = proxy.seen.length;
  const gaveUp = await apiError(t, () => alice.getKey(key.id));
  t.match(gaveUp, { code: 'ServiceUnavailable', status: 503 }, 'after the last retry the 503 is thrown');
  t.equal(proxy.seen.length - reads, 4, 'the first attempt and three retries (the default)');
});

t.test('network failures and timeouts are SvcApiErrors too', async (t) => {
  const nowhere = new SvcClient({
    server: 'http://127.0.0.1:1',
    credentials: { user: 'x' },
    retry: { retries: 1, ...fastRetry },
  });
  t.match(await apiError(t, () => nowhere.health()), { code: 'NetworkError', status: 0 });
  const key = await alice.createKey({ name: 'timeout', algorithm: 'AES' });
  proxy.inject(new RegExp(`^GET /v1/keys/${key.id}$`), 'stall', 2);
  const before = proxy.seen.length;
  const slow = new SvcClient({
    server: proxy.url,
    credentials: { token: aliceToken },
    timeoutMs: 200,
    retry: { retries: 1, ...fastRetry },
  });
  t.match(await apiError(t, () => slow.getKey(key.id)), { code: 'Timeout', status: 0 });
  t.equal(proxy.seen.length - before, 2, 'a read that timed out is tried once more');

  proxy.inject(new RegExp(`^GET /v1/keys/${key.id}$`), 'stall-body', 1);
  const midBody = proxy.seen.length;
  t.equal((await slow.getKey(key.id)).id, key.id, 'an answer whose body stalls times out and the read is tried again');
  t.equal(proxy.seen.length - midBody, 2);
  proxy.inject(new RegExp(`^GET /v1/keys/${key.id}$`), 'stall-body', 2);
  t.match(
    await apiError(t, () => slow.getKey(key.id)),
    { code: 'Timeout', status: 0 },
    'the timeout covers the body: a Timeout, not a bare abort error',
  );
});

t.test(
  'model and promptId: set per client, overridden per call, audited with the call and found by queryAudit',
  async (t) => {
    const tagged = new SvcClient({
      server: service.url,
      credentials: { token: aliceToken },
      model: 'sdk-model',
      promptId: 'sdk-prompt-1',
    });
    const key = await alice.createKey({ name: 'sdk-prompted', algorithm: 'AES' });
    await alice.activateKey(key.id);
    const first = await tagged.encrypt(key.id, text('one'));
    await tagged.encrypt(key.id, text('two'), undefined, { promptId: 'sdk-prompt-2', model: 'other-model' });
    const one = await alice.queryAudit({ promptId: 'sdk-prompt-1' });
    t.same(
      one.records.map((r) => r.operation),
      ['Encrypt'],
      "the client's prompt: one call",
    );
    t.match(one.records[0]!.context, { 'agent.model': 'sdk-model', 'agent.promptId': 'sdk-prompt-1' });
    const two = await alice.queryAudit({ promptId: 'sdk-prompt-2' });
    t.match(
      two.records.map((r) => r.context),
      [{ 'agent.model': 'other-model', 'agent.promptId': 'sdk-prompt-2' }],
      "the call's own override",
    );
    t.ok(first.ciphertext.length > 0);
    const refused = await apiError(t, () => tagged.getKey(key.id, { promptId: 'x'.repeat(129) }));
    t.match(refused, { code: 'InvalidField', status: 400, message: /X-Svc-Prompt-Id must be at most 128 characters/ });
    const unsendable = await apiError(t, () => tagged.getKey(key.id, { model: 'mod\u20acle' }));
    t.match(
      unsendable,
      { code: 'InvalidField', status: 0, message: /model must be printable ASCII text/ },
      'not a NetworkError retried three times',
    );
  },
);

t.test('listKeys: one page with filters; keyPages follows nextCursor to the last page', async (t) => {
  const made: string[] = [];
  for (let i = 0; i < 5; i++)
    made.push((await alice.createKey({ name: `sdk-list-${i}`, algorithm: i === 0 ? 'HMAC' : 'AES' })).id);
  const first = await alice.listKeys({ name: 'sdk-list-*', limit: 2 });
  t.same(
    first.keys.map((k) => k.id),
    [made[4], made[3]],
    'newest first, limit per page',
  );
  t.type(first.nextCursor, 'string');
  t.same(
    (await alice.listKeys({ name: 'sdk-list-*', algorithm: 'HMAC' })).keys.map((k) => k.id),
    [made[0]],
    'a filter',
  );
  const pages: string[][] = [];
  for await (const page of alice.keyPages({ name: 'sdk-list-*', limit: 2 })) pages.push(page.keys.map((k) => k.id));
  t.same(pages, [[made[4], made[3]], [made[2], made[1]], [made[0]]], 'every page, once');
  const bad = await apiError(t, () => alice.listKeys({ cursor: 'not-a-cursor!' }));
  t.match(bad, { code: 'InvalidField', status: 400 });
});
