import { SvcError } from '../../kernel/errors.ts';
import { guarded, type RouteDef, type RouteRequest } from '../../kernel/http/route.ts';
import * as S from '../../schemas/keys.ts';
import { decodeBase64 } from './base64.ts';
import type { KeyCrypto } from './key-crypto.ts';
import { keyView, type KeyLifecycle } from './key-lifecycle.ts';

const byId = (req: RouteRequest) => req.params.id!;
const b64 = (buf: Buffer) => buf.toString('base64');
const STATE_ERRORS = ['KeyNotFound', 'IllegalOperation'];

/** The key lifecycle and crypto endpoints of SPEC 4, plus revoke and public-key (DECISIONS). */
export function keyRoutes(lifecycle: KeyLifecycle, crypto: KeyCrypto): RouteDef[] {
  return [
    guarded({
      method: 'POST', path: '/v1/keys', tag: 'Keys', summary: 'Create a key (state PreActive, version 1)', operation: 'Create',
      body: S.CreateKeyBody, response: S.ManagedKey, successStatus: 201,
      resource: (req) => `name:${(req.body as { spec?: { name?: string } })?.spec?.name ?? ''}`,
      handler: async (req) => {
        const key = await lifecycle.create(req.body.spec, req.principal.subject);
        req.audit.resource = key.id;
        Object.assign(req.audit.context, { algorithm: key.spec.algorithm, sizeBits: String(key.spec.sizeBits), ...(key.spec.curve ? { curve: key.spec.curve } : {}) });
        return { status: 201, body: keyView(key) };
      },
    }),
    guarded({
      method: 'GET', path: '/v1/keys/:id', tag: 'Keys', summary: 'Get a key', operation: 'Get', response: S.ManagedKey, errors: ['KeyNotFound'], resource: byId,
      handler: async (req) => ({ body: keyView(await lifecycle.get(req.params.id!)) }),
    }),
    guarded({
      method: 'POST', path: '/v1/keys/:id/activate', tag: 'Keys', summary: 'PreActive -> Active', operation: 'Activate', response: S.ActivateResponse, errors: STATE_ERRORS, resource: byId,
      handler: async (req) => ({ body: await lifecycle.activate(req.params.id!, req.principal.subject) }),
    }),
    guarded({
      method: 'POST', path: '/v1/keys/:id/rotate', tag: 'Keys', summary: 'New version; older versions keep verifying, decrypting, unwrapping', operation: 'Rotate',
      body: S.RotateBody, response: S.RotateResponse, errors: STATE_ERRORS, resource: byId,
      handler: async (req) => {
        const result = await lifecycle.rotate(req.params.id!, req.principal.subject, req.body);
        Object.assign(req.audit.context, { previousVersion: String(result.previousVersion), currentVersion: String(result.currentVersion), policy: result.rotationPolicy, ...(req.body.reason ? { reason: req.body.reason } : {}) });
        return { body: result };
      },
    }),
    guarded({
      method: 'POST', path: '/v1/keys/:id/revoke', tag: 'Keys', summary: 'Active -> Deactivated (old material still verifies and decrypts)', operation: 'Revoke',
      body: S.ReasonBody, response: S.RevokeResponse, errors: STATE_ERRORS, resource: byId,
      handler: async (req) => {
        if (req.body.reason) Object.assign(req.audit.context, { reason: req.body.reason });
        return { body: await lifecycle.revoke(req.params.id!, req.principal.subject, req.body.reason) };
      },
    }),
    guarded({
      method: 'POST', path: '/v1/keys/:id/compromise', tag: 'Keys', summary: 'Mark compromised (one-way; every crypto call refused after)', operation: 'Compromise',
      body: S.CompromiseBody, response: S.CompromiseResponse, errors: STATE_ERRORS, resource: byId,
      handler: async (req) => {
        Object.assign(req.audit.context, { severity: 'Critical', reason: req.body.reason });
        return { body: await lifecycle.compromise(req.params.id!, req.principal.subject, req.body.reason) };
      },
    }),
    guarded({
      method: 'DELETE', path: '/v1/keys/:id', tag: 'Keys', summary: 'Destroy: erase every version\'s material for good', operation: 'Destroy',
      response: S.DestroyResponse, errors: STATE_ERRORS, resource: byId,
      handler: async (req) => ({ body: await lifecycle.destroy(req.params.id!, req.principal.subject) }),
    }),
    guarded({
      method: 'GET', path: '/v1/keys/:id/public-key', tag: 'Keys', summary: 'SPKI PEM public key of an RSA, EC or EdDSA key', operation: 'Get',
      query: S.PublicKeyQuery, response: S.PublicKeyResponse, errors: STATE_ERRORS, resource: byId,
      handler: async (req) => ({ body: await lifecycle.publicKey(req.params.id!, req.query.version ? Number(req.query.version) : undefined) }),
    }),
    guarded({
      method: 'POST', path: '/v1/keys/:id/sign', tag: 'Crypto', summary: 'Sign a message with the current version', operation: 'Sign',
      body: S.SignBody, response: S.SignResponse, errors: STATE_ERRORS, resource: byId,
      handler: async (req) => {
        const r = await crypto.sign(req.params.id!, decodeBase64(req.body.messageBase64, 'messageBase64'), req.body.algorithm);
        Object.assign(req.audit.context, { keyVersion: String(r.keyVersion), alg: r.algorithm });
        return { body: { signatureBase64: b64(r.signature), algorithm: r.algorithm, keyVersion: r.keyVersion } };
      },
    }),
    guarded({
      method: 'POST', path: '/v1/keys/:id/verify', tag: 'Crypto', summary: 'Verify a signature (200 with valid:false when it does not match)', operation: 'Verify',
      body: S.VerifyBody, response: S.VerifyResponse, errors: STATE_ERRORS, resource: byId,
      handler: async (req) => {
        const message = decodeBase64(req.body.messageBase64, 'messageBase64');
        const signature = decodeBase64(req.body.signatureBase64, 'signatureBase64');
        const r = await crypto.verify(req.params.id!, message, signature, req.body.algorithm, req.body.keyVersion);
        Object.assign(req.audit.context, { alg: r.algorithm, ...(r.keyVersion ? { keyVersion: String(r.keyVersion) } : {}) });
        if (!r.valid) req.audit.outcome = 'InvalidSignature';
        return { body: r };
      },
    }),
    guarded({
      method: 'POST', path: '/v1/keys/:id/encrypt', tag: 'Crypto', summary: 'AES-GCM encrypt, context bound as AAD', operation: 'Encrypt',
      body: S.EncryptBody, response: S.EncryptResponse, errors: STATE_ERRORS, resource: byId,
      handler: async (req) => {
        const plaintext = decodeBase64(req.body.plaintextBase64, 'plaintextBase64');
        const context = req.body.context ?? {};
        const r = await crypto.encrypt(req.params.id!, plaintext, context);
        Object.assign(req.audit.context, { keyVersion: String(r.keyVersion), alg: r.algorithm, plaintextLength: String(plaintext.length), contextKeys: Object.keys(context).sort().join(',') });
        return { body: { ciphertextBase64: b64(r.ciphertext), keyVersion: r.keyVersion, algorithm: r.algorithm } };
      },
    }),
    guarded({
      method: 'POST', path: '/v1/keys/:id/decrypt', tag: 'Crypto', summary: 'Decrypt an envelope (the same context as encrypt)', operation: 'Decrypt',
      body: S.DecryptBody, response: S.DecryptResponse, errors: [...STATE_ERRORS, 'DecryptionFailed'], resource: byId,
      handler: async (req) => {
        const context = req.body.context ?? {};
        Object.assign(req.audit.context, { contextKeys: Object.keys(context).sort().join(',') });
        const r = await crypto.decrypt(req.params.id!, decodeBase64(req.body.ciphertextBase64, 'ciphertextBase64'), context);
        req.audit.context.keyVersion = String(r.keyVersion);
        return { body: { plaintextBase64: b64(r.plaintext), keyVersion: r.keyVersion } };
      },
    }),
    guarded({
      method: 'POST', path: '/v1/keys/:id/wrap', tag: 'Crypto', summary: 'Wrap a data key (AES key wrap); accepts dekBase64 or plaintextBase64', operation: 'Wrap',
      body: S.WrapBody, response: S.WrapResponse, errors: STATE_ERRORS, resource: byId,
      handler: async (req) => {
        const field = req.body.dekBase64 !== undefined ? 'dekBase64' : 'plaintextBase64';
        const text = req.body.dekBase64 ?? req.body.plaintextBase64;
        if (text === undefined) throw new SvcError('BadRequest', 'body is missing required field "dekBase64"');
        const dek = decodeBase64(text, field);
        const r = await crypto.wrap(req.params.id!, dek);
        Object.assign(req.audit.context, { keyVersion: String(r.keyVersion), alg: r.algorithm, dekLen: String(dek.length) });
        return { body: { wrappedDekBase64: b64(r.wrapped), keyVersion: r.keyVersion, algorithm: r.algorithm } };
      },
    }),
    guarded({
      method: 'POST', path: '/v1/keys/:id/unwrap', tag: 'Crypto', summary: 'Unwrap a data key; accepts wrappedDekBase64 or wrappedKeyBase64', operation: 'Unwrap',
      body: S.UnwrapBody, response: S.UnwrapResponse, errors: [...STATE_ERRORS, 'DecryptionFailed'], resource: byId,
      handler: async (req) => {
        const field = req.body.wrappedDekBase64 !== undefined ? 'wrappedDekBase64' : 'wrappedKeyBase64';
        const text = req.body.wrappedDekBase64 ?? req.body.wrappedKeyBase64;
        if (text === undefined) throw new SvcError('BadRequest', 'body is missing required field "wrappedDekBase64"');
        const r = await crypto.unwrap(req.params.id!, decodeBase64(text, field));
        Object.assign(req.audit.context, { keyVersion: String(r.keyVersion) });
        return { body: { dekBase64: b64(r.dek), keyVersion: r.keyVersion } };
      },
    }),
  ];
}
