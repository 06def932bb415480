/**
 * A key's whole life through a client generated from the service's OpenAPI document alone
 * (openapi-typescript types + openapi-fetch). openapi-client.test.ts type-checks this file against the
 * types generated from the running service, then runs it against that service: each @ts-expect-error
 * below must be an error, so loose types (an optional body, a plain-string enum, a string limit) fail
 * the check.
 */
import createClient from 'openapi-fetch';
import type { components, paths } from './api.ts';

type ManagedKey = components['schemas']['ManagedKey'];

const kms = createClient<paths>({ baseUrl: process.env.SVC_URL!, headers: { 'X-Svc-User': 'alice' } });

function check(condition: boolean, what: string): asserts condition {
  if (!condition) throw new Error(`lifecycle: ${what}`);
}

/** Calls the generated types must refuse; never run. */
export function refusedByTheTypes(): void {
  // @ts-expect-error the create body is required
  void kms.POST('/v1/keys', {});
  // @ts-expect-error algorithm is an enum, not any string
  void kms.POST('/v1/keys', { body: { spec: { name: 'x', algorithm: 'Rot13' } } });
  // @ts-expect-error limit is an integer
  void kms.GET('/v1/audit', { params: { query: { limit: '10' } } });
}

async function main(): Promise<void> {
  const created = await kms.POST('/v1/keys', {
    body: { spec: { name: 'generated-client', algorithm: 'AES', sizeBits: 256 } },
  });
  check(created.response.status === 201 && created.data !== undefined, `create answered ${created.response.status}`);
  const key: ManagedKey = created.data;
  const id = { params: { path: { id: key.id } } };
  const state: 'PreActive' | 'Active' | 'Deactivated' | 'Compromised' | 'Destroyed' = key.state;
  check(state === 'PreActive', 'a new key is PreActive');

  const activated = await kms.POST('/v1/keys/{id}/activate', id);
  check(activated.data?.state === 'Active', 'activate');

  const context = { tenant: 'acme' };
  // Encrypt, decrypt, sign and verify answer one item or a batch (oneOf): a client narrows by the answer's fields.
  const sealed = await kms.POST('/v1/keys/{id}/encrypt', {
    ...id,
    body: { plaintextBase64: Buffer.from('hello').toString('base64'), context },
  });
  check(
    sealed.data !== undefined && 'keyVersion' in sealed.data && sealed.data.keyVersion === 1,
    'encrypt under version 1',
  );
  const ciphertextBase64 = 'ciphertextBase64' in sealed.data ? sealed.data.ciphertextBase64 : '';
  const opened = await kms.POST('/v1/keys/{id}/decrypt', { ...id, body: { ciphertextBase64, context } });
  check(
    opened.data !== undefined &&
      'plaintextBase64' in opened.data &&
      Buffer.from(opened.data.plaintextBase64, 'base64').toString() === 'hello',
    'decrypt gives the plaintext back',
  );
  const batch = await kms.POST('/v1/keys/{id}/decrypt', {
    ...id,
    body: {
      items: [
        { ciphertextBase64, context },
        { ciphertextBase64, context: { tenant: 'evil' } },
      ],
    },
  });
  const results = batch.data !== undefined && 'results' in batch.data ? batch.data.results : [];
  check(
    results.length === 2 &&
      'plaintextBase64' in results[0]! &&
      'error' in results[1]! &&
      results[1].error === 'DecryptionFailed',
    'a batch answers each item',
  );

  const wrongContext = await kms.POST('/v1/keys/{id}/decrypt', {
    ...id,
    body: { ciphertextBase64, context: { tenant: 'evil' } },
  });
  check(
    wrongContext.response.status === 400 && wrongContext.error?.error === 'DecryptionFailed',
    'a wrong context is DecryptionFailed',
  );

  const rotated = await kms.POST('/v1/keys/{id}/rotate', { ...id, body: {} });
  check(rotated.data?.currentVersion === 2, 'rotate to version 2');

  const signer = await kms.POST('/v1/keys', {
    body: { spec: { name: 'generated-signer', algorithm: 'EdDSA', curve: 'Ed25519' } },
  });
  const signerId = { params: { path: { id: signer.data!.id } } };
  await kms.POST('/v1/keys/{id}/activate', signerId);
  const message = Buffer.from('release 1.0').toString('base64');
  const signed = await kms.POST('/v1/keys/{id}/sign', {
    ...signerId,
    body: { messageBase64: message, algorithm: 'Ed25519' },
  });
  const signatureBase64 =
    signed.data !== undefined && 'signatureBase64' in signed.data ? signed.data.signatureBase64 : '';
  const verified = await kms.POST('/v1/keys/{id}/verify', {
    ...signerId,
    body: { messageBase64: message, signatureBase64 },
  });
  check(verified.data !== undefined && 'valid' in verified.data && verified.data.valid, 'the signature verifies');
  const publicKey = await kms.GET('/v1/keys/{id}/public-key', {
    params: { path: { id: signer.data!.id }, query: { version: 1 } },
  });
  check(publicKey.data?.publicKeyPem.startsWith('-----BEGIN PUBLIC KEY-----') === true, 'the public key is PEM');

  const revoked = await kms.POST('/v1/keys/{id}/revoke', { ...id, body: { reason: 'retired' } });
  check(revoked.data?.state === 'Deactivated', 'revoke');
  const destroyed = await kms.DELETE('/v1/keys/{id}', id);
  check(destroyed.data?.state === 'Destroyed', 'destroy');

  const trail = await kms.GET('/v1/audit', { params: { query: { key: key.id, limit: 10 } } });
  const operations = trail.data!.records.map((r) => r.operation);
  check(
    JSON.stringify(operations) ===
      JSON.stringify(['Destroy', 'Revoke', 'Rotate', 'Decrypt', 'Decrypt', 'Decrypt', 'Encrypt', 'Activate', 'Create']),
    `audit trail: ${operations.join(',')}`,
  );

  const missing = await kms.GET('/v1/keys/{id}', { params: { path: { id: '00000000-0000-4000-8000-000000000000' } } });
  check(missing.response.status === 404 && missing.error?.error === 'KeyNotFound', 'an unknown key is KeyNotFound');
  process.stdout.write('lifecycle ok\n');
}

await main();
