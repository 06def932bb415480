import { createDecipheriv } from 'node:crypto';
import http from 'node:http';
import t from 'tap';
import { ownersService } from '../helpers/alias-owners.ts';
import { ApiClient } from '../helpers/client.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

/**
 * An attacker's review of the Vault transit door (plugins/doors/vault-transit): each test is an attack,
 * or a refusal that goes unrecorded, and asserts what the attacker must not achieve. Tests marked GUARD
 * pass today and hold behaviour that must not regress.
 */

const HMAC = { SVC_AUTH_KIND: 'hmac', SVC_AUTH_HMAC_SECRET: TEST_SECRET, SVC_RISK_ENABLED: 'false' };
const b64 = (text: string) => Buffer.from(text).toString('base64');
const tokenOf = (sub: string, claims: Record<string, unknown> = {}) =>
  mintToken({ sub, svc_kind: 'human', ...claims }, { ttlSeconds: 3600 });

interface DoorAnswer {
  status: number;
  body: any;
  id: string | null;
}

/** One transit call with fetch: X-Vault-Token as Vault's clients send it. */
async function door(
  svc: TestService,
  token: string | undefined,
  method: string,
  path: string,
  body?: unknown,
): Promise<DoorAnswer> {
  const answer = await fetch(`${svc.url}/v1/transit/${path}`, {
    method,
    headers: { ...(token ? { 'X-Vault-Token': token } : {}), 'Content-Type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await answer.text();
  return { status: answer.status, body: text ? JSON.parse(text) : undefined, id: answer.headers.get('x-request-id') };
}

/** The audit rows of one request, as `operation outcome subject`. */
async function rowsOf(svc: TestService, auditorToken: string, requestId: string | null): Promise<any[]> {
  const auditor = new ApiClient(svc.url, { Authorization: `Bearer ${auditorToken}` });
  const page = await auditor.get('/v1/audit?limit=1000');
  if (page.status !== 200) throw new Error(`audit read failed: ${page.status} ${JSON.stringify(page.body)}`);
  return (page.body.records as any[]).filter((r) => r.correlationId === requestId);
}

/** A raw HTTP call, for what fetch cannot send (the same header twice). */
function rawCall(
  svc: TestService,
  method: string,
  path: string,
  headers: Record<string, string | string[]>,
): Promise<{ status: number; body: string }> {
  const url = new URL(svc.url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
      let text = '';
      res.on('data', (chunk) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end();
  });
}

t.test(
  "a transit create of a name another owner took first does not hand the caller that owner's exportable key",
  async (t) => {
    // mallory may only touch her own keys; payments-app is a Service bound by subject to a plain list of
    // operations, as docs/auth.md tells operators to bind Services.
    const svc = await startTestService({
      ...HMAC,
      SVC_POLICY_KIND: 'role-based',
      SVC_POLICY_SUBJECT_BINDINGS: JSON.stringify({
        mallory: {
          operations: ['Create', 'Activate', 'Get', 'Encrypt', 'Decrypt', 'AddAttribute', 'Export'],
          keys: ['owner:self'],
        },
        'payments-app': ['Create', 'Activate', 'Get', 'Encrypt', 'Decrypt', 'AddAttribute'],
      }),
    });
    t.teardown(() => svc.stop());
    const mallory = await tokenOf('mallory');
    const payments = await tokenOf('payments-app', { svc_kind: 'service' });

    // mallory guesses the transit name the payments team will use and takes it first, exportable.
    const squatted = await door(svc, mallory, 'POST', 'keys/payroll', { exportable: true });
    t.equal(squatted.status, 200, 'mallory makes an exportable key called payroll');
    const mallorysKey = squatted.body.data['svc.key_id'];

    // The payments service creates "its" key, as `vault write -f transit/keys/payroll` does, and uses it.
    const created = await door(svc, payments, 'POST', 'keys/payroll', {});
    t.not(
      created.status === 200 ? created.body.data['svc.key_id'] : undefined,
      mallorysKey,
      `payments-app's create is not answered with mallory's key as its own (got ${created.status}: ${JSON.stringify(created.body).slice(0, 160)})`,
    );

    // What follows when it is: the service encrypts under mallory's key and she reads the data offline.
    if (created.status === 200 && created.body.data['svc.key_id'] === mallorysKey) {
      const sealed = await door(svc, payments, 'POST', 'encrypt/payroll', { plaintext: b64('salary: 100k') });
      const exported = await door(svc, mallory, 'GET', 'export/encryption-key/payroll');
      if (sealed.status === 200 && exported.status === 200) {
        const material = Buffer.from(exported.body.data.keys['1'], 'base64');
        const envelope = Buffer.from(sealed.body.data.ciphertext.split(':')[2], 'base64');
        const decipher = createDecipheriv('aes-256-gcm', material, envelope.subarray(5, 17));
        decipher.setAAD(Buffer.from(`svc-kms/v1|${mallorysKey}|${envelope.readUInt32BE(1)}|[]`));
        decipher.setAuthTag(envelope.subarray(17, 33));
        const opened = Buffer.concat([decipher.update(envelope.subarray(33)), decipher.final()]).toString();
        t.not(opened, 'salary: 100k', "mallory cannot open payments-app's ciphertext with the material she exported");
      }
    }
  },
);

t.test('a jws ECDSA signature is accepted only at its curve’s width (no second encoding verifies)', async (t) => {
  const svc = await startTestService(HMAC);
  t.teardown(() => svc.stop());
  const alice = await tokenOf('alice');
  t.equal((await door(svc, alice, 'POST', 'keys/release', { type: 'ecdsa-p256' })).status, 200);
  const signed = await door(svc, alice, 'POST', 'sign/release', { input: b64('v1.2.3'), marshaling_algorithm: 'jws' });
  t.equal(signed.status, 200, 'alice signs a release in jws form');
  const [, version, jws] = (signed.body.data.signature as string).split(':');
  const raw = Buffer.from(jws!, 'base64url');
  t.equal(raw.length, 64, 'P-256 jws is r || s, 32 bytes each');
  const genuine = await door(svc, alice, 'POST', 'verify/release', {
    input: b64('v1.2.3'),
    marshaling_algorithm: 'jws',
    signature: `vault:${version}:${jws}`,
  });
  t.equal(genuine.body.data?.valid, true, 'the genuine signature verifies');

  // Anyone who saw the signature writes another one for the same message: r and s each with a leading zero.
  const padded = Buffer.concat([Buffer.alloc(1), raw.subarray(0, 32), Buffer.alloc(1), raw.subarray(32)]);
  const forged = await door(svc, alice, 'POST', 'verify/release', {
    input: b64('v1.2.3'),
    marshaling_algorithm: 'jws',
    signature: `vault:${version}:${padded.toString('base64url')}`,
  });
  t.not(
    forged.body.data?.valid,
    true,
    `a 66-byte "jws" for a P-256 key is not a valid signature (got ${forged.status} ${JSON.stringify(forged.body)})`,
  );
});

/** alice may revoke (an incident responder's right) but not destroy; rotator may only rotate. */
const partialRights = {
  ...HMAC,
  SVC_POLICY_KIND: 'role-based',
  SVC_POLICY_SUBJECT_BINDINGS: JSON.stringify({
    alice: ['Create', 'Activate', 'Get', 'Encrypt', 'Decrypt', 'AddAttribute', 'Revoke'],
    rotator: ['Rotate'],
  }),
};

t.test('a DELETE refused for want of Destroy has not revoked the key for good', async (t) => {
  const svc = await startTestService(partialRights);
  t.teardown(() => svc.stop());
  const alice = await tokenOf('alice');
  t.equal((await door(svc, alice, 'POST', 'keys/ledger', {})).status, 200);
  t.equal((await door(svc, alice, 'POST', 'keys/ledger/config', { deletion_allowed: true })).status, 200);
  const deleted = await door(svc, alice, 'DELETE', 'keys/ledger');
  t.equal(deleted.status, 403, 'alice may not destroy: the delete is refused');
  const after = await door(svc, alice, 'POST', 'encrypt/ledger', { plaintext: b64('still mine') });
  t.equal(
    after.status,
    200,
    `the refused delete left the key encrypting (got ${after.status} ${JSON.stringify(after.body?.errors)})`,
  );
});

t.test('a rotate answered 403 has not rotated the key', async (t) => {
  const svc = await startTestService(partialRights);
  t.teardown(() => svc.stop());
  const alice = await tokenOf('alice');
  const rotator = await tokenOf('rotator');
  t.equal((await door(svc, alice, 'POST', 'keys/books', {})).status, 200);
  const rotated = await door(svc, rotator, 'POST', 'keys/books/rotate', {});
  const latest = (await door(svc, alice, 'GET', 'keys/books')).body.data.latest_version;
  t.equal(
    rotated.status < 300,
    latest === 2,
    `the rotate's answer (${rotated.status}) tells what happened (latest_version ${latest})`,
  );
});

t.test('a batch whose every item the door refuses is still authorized and audited', async (t) => {
  const { svc } = await ownersService();
  t.teardown(() => svc.stop());
  const ops = await tokenOf('ops');
  // carol is bound to nothing; alice's key payroll is named by alias/payroll-prod.
  const carol = await tokenOf('carol');
  const probe = await door(svc, carol, 'POST', 'encrypt/payroll-prod', {
    batch_input: [
      { plaintext: b64('a'), nonce: 'AAAA' },
      { plaintext: b64('b'), key_version: 7 },
    ],
  });
  const rows = await rowsOf(svc, ops, probe.id);
  t.equal(probe.status, 403, `carol, who may touch no key, is refused (got ${probe.status})`);
  t.ok(
    rows.some((r) => r.principal.subject === 'carol'),
    `carol's call on alice's key is in the audit trail (rows: ${rows.length})`,
  );
});

t.test("a refusal of hmac/NAME or verify/NAME is audited as the route's operation", async (t) => {
  const svc = await startTestService(HMAC);
  t.teardown(() => svc.stop());
  const alice = await tokenOf('alice');
  t.equal((await door(svc, alice, 'POST', 'keys/mac', { type: 'hmac' })).status, 200);
  const operations = async (answer: DoorAnswer) => (await rowsOf(svc, alice, answer.id)).map((r) => r.operation);

  // An HMAC computation refused for its hash: a stray `hmac` field in the body must not make it a Verify.
  const computed = await door(svc, alice, 'POST', 'hmac/mac', { input: b64('x'), algorithm: 'sha1', hmac: 'x' });
  t.equal(computed.status, 400);
  t.same(await operations(computed), ['Sign'], 'a refused hmac/NAME is a refused Sign');

  // An HMAC verification (batch) refused for its hash: recorded as the Verify it was, not a Sign.
  const checked = await door(svc, alice, 'POST', 'verify/mac', {
    algorithm: 'sha1',
    batch_input: [{ input: b64('x'), hmac: 'vault:v1:AAAA' }],
  });
  t.equal(checked.status, 400);
  t.same(await operations(checked), ['Verify'], 'a refused verify/NAME is a refused Verify');
});

t.test('a trim with a malformed min_available_version is audited as the refused trim', async (t) => {
  const svc = await startTestService(HMAC);
  t.teardown(() => svc.stop());
  const alice = await tokenOf('alice');
  t.equal((await door(svc, alice, 'POST', 'keys/old', {})).status, 200);
  const trimmed = await door(svc, alice, 'POST', 'keys/old/trim', { min_available_version: 'two' });
  t.equal(trimmed.status, 400);
  const rows = (await rowsOf(svc, alice, trimmed.id)).map((r) => `${r.operation} ${r.outcome}`);
  t.ok(
    rows.some((r) => r.startsWith('Destroy ') && !r.endsWith('Success')),
    `the refused trim (operation Destroy) is in the trail (rows: ${rows.join('; ')})`,
  );
});

t.test('a vault:vN: ciphertext whose N is not the version that made it is refused', async (t) => {
  const svc = await startTestService(HMAC);
  t.teardown(() => svc.stop());
  const alice = await tokenOf('alice');
  t.equal((await door(svc, alice, 'POST', 'keys/docs', {})).status, 200);
  const old = (await door(svc, alice, 'POST', 'encrypt/docs', { plaintext: b64('draft') })).body.data.ciphertext;
  t.match(old, /^vault:v1:/);
  t.equal((await door(svc, alice, 'POST', 'keys/docs/rotate', {})).status, 200);
  // Relabelled as the latest version, an old ciphertext hides from "rewrap everything below v2, then trim".
  const relabelled = old.replace(/^vault:v1:/, 'vault:v2:');
  const opened = await door(svc, alice, 'POST', 'decrypt/docs', { ciphertext: relabelled });
  t.equal(opened.status, 400, `decrypt refuses a prefix that lies about the version (got ${opened.status})`);
  const rewrapped = await door(svc, alice, 'POST', 'rewrap/docs', { ciphertext: relabelled });
  t.equal(rewrapped.status, 400, `rewrap refuses it too (got ${rewrapped.status})`);
});

t.test('a transit DELETE waits keys.destroyWaitingDays like any DELETE that names no wait', async (t) => {
  const svc = await startTestService({ ...HMAC, SVC_KEYS_DESTROY_WAITING_DAYS: '7' });
  t.teardown(() => svc.stop());
  const alice = await tokenOf('alice');
  const made = await door(svc, alice, 'POST', 'keys/archive', {});
  const id = made.body.data['svc.key_id'];
  t.equal((await door(svc, alice, 'POST', 'keys/archive/config', { deletion_allowed: true })).status, 200);
  t.equal((await door(svc, alice, 'DELETE', 'keys/archive')).status, 204, 'the delete is accepted');
  const rest = new ApiClient(svc.url, { Authorization: `Bearer ${alice}` });
  const key = (await rest.get(`/v1/keys/${id}`)).body;
  t.not(key.state, 'Destroyed', 'the key is not destroyed at once: the deployment asks for a 7-day wait');
  t.match(key, { destroyAt: /^\d{4}-/ }, 'its destruction is scheduled, and a Human may still cancel it');
});

t.test('GUARD: one credential per request; X-Vault-Token is the caller, never a second header', async (t) => {
  const { svc } = await ownersService();
  t.teardown(() => svc.stop());
  const alice = await tokenOf('alice');
  const mallory = await tokenOf('mallory');
  const ops = await tokenOf('ops');
  // alias/payroll-prod names alice's key.
  const twice = await rawCall(svc, 'GET', '/v1/transit/keys/payroll-prod', { 'X-Vault-Token': [mallory, alice] });
  t.equal(twice.status, 403, 'two X-Vault-Token headers: refused, neither token is picked');
  const both = await door(svc, mallory, 'GET', 'keys/payroll-prod');
  t.equal(both.status, 403, "mallory's X-Vault-Token is refused alice's key");
  const mixed = await fetch(`${svc.url}/v1/transit/keys/payroll-prod`, {
    headers: { 'X-Vault-Token': mallory, Authorization: `Bearer ${alice}` },
  });
  t.equal(mixed.status, 403, "alice's Authorization does not lift mallory's X-Vault-Token");
  const rows = await rowsOf(svc, ops, mixed.headers.get('x-request-id'));
  t.same(
    rows.map((r) => r.principal.subject),
    ['mallory'],
    'the call is recorded as the X-Vault-Token principal',
  );
});

t.test('GUARD: no transit field or path reaches another key (destinationKeyId, id, encoded names)', async (t) => {
  const { svc, mallorysKey, secretKey } = await ownersService();
  t.teardown(() => svc.stop());
  const alice = await tokenOf('alice');
  const sealed = await door(svc, alice, 'POST', 'encrypt/payroll-prod', { plaintext: b64('salary') });
  t.equal(sealed.status, 200);
  // Fields of the service's own inputs, smuggled into transit bodies and batch items.
  for (const [path, body] of [
    [
      'rewrap/payroll-prod',
      { ciphertext: sealed.body.data.ciphertext, destinationKeyId: mallorysKey, id: mallorysKey },
    ],
    [
      'encrypt/payroll-prod',
      { batch_input: [{ plaintext: b64('x'), id: mallorysKey, destinationKeyId: mallorysKey, keyId: mallorysKey }] },
    ],
  ] as const) {
    const answer = await door(svc, alice, 'POST', path, body);
    t.equal(answer.status, 200, `${path}: answered on alice's own key`);
    const rows = await rowsOf(svc, await tokenOf('ops'), answer.id);
    t.ok(
      rows.every((r) => r.resource === secretKey && (r.context.destinationKeyId ?? secretKey) === secretKey),
      `${path}: every record names alice's key only`,
    );
  }
  for (const path of ['keys/..', 'keys/%2e%2e', 'keys/payroll-prod%2F..', 'keys/alias%2Fpayroll-prod', 'keys/a%00b']) {
    const answer = await door(svc, alice, 'GET', path);
    t.ok([400, 403, 404].includes(answer.status), `GET ${path}: ${answer.status}, no key named by it`);
    t.notOk(JSON.stringify(answer.body).includes(secretKey), `GET ${path}: nothing of alice's key in the answer`);
  }
});
