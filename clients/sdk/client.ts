import { Buffer } from 'node:buffer';
import { Transport, type CallOptions, type Credentials, type RetryOptions } from './transport.ts';
import type * as T from './types.ts';
import {
  type BatchItemError,
  type DataKeyOptions,
  type DataKeyResult,
  type DecryptItem,
  type EncryptItem,
  isBatchItemError,
  type ReencryptOptions,
  type ReencryptResult,
  type SignItem,
  type VerifyItem,
} from './batch-types.ts';
import { AccessKeyCalls } from './access-key-calls.ts';
import { fetchWithTls, type ClientTls } from './tls-fetch.ts';
import { wrapKeyMaterial } from '../../schemas/key-wrapping.ts';

export interface SvcClientOptions {
  /** Base URL of the service, for example http://127.0.0.1:8080. */
  server: string;
  credentials?: Credentials;
  /** Per-attempt timeout; default 10 000 ms. */
  timeoutMs?: number;
  /**
   * Retries of calls that are safe to repeat, on 503 and on network errors only; default 3 retries from 100 ms up to 2
   * s.
   */
  retry?: Partial<RetryOptions>;
  /** A fetch to use instead of the global one (a proxy agent, a test). */
  fetch?: typeof fetch;
  /** A private CA and, for mutual TLS, a client certificate and key (ignored when fetch is given). */
  tls?: ClientTls;
  /**
   * The model and prompt every call acts for (X-Svc-Model, X-Svc-Prompt-Id), audited with each call; a call's options
   * override them.
   */
  model?: string;
  promptId?: string;
}

const b64 = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
const bytes = (text: string): Uint8Array => Buffer.from(text, 'base64');
const key = (id: string, rest = '') => `/v1/keys/${encodeURIComponent(id)}${rest}`;
/** A batch item's message, or its digest. */
const signedOf = (item: SignItem) =>
  item.digest !== undefined ? { digestBase64: b64(item.digest) } : { messageBase64: b64(item.message) };

/**
 * A typed client of the svc-kms REST API: one method per endpoint. Errors are thrown as SvcApiError.
 * Only reads, verify, decrypt and unwrap are retried (on 503 and network errors): the other calls change
 * key state or count toward OpCountBased rotation, so the caller decides whether to send them again.
 * Aliases, tags, disable and enable, and the policy are the methods of KeyModelCalls (key-model-calls.ts),
 * access keys those of AccessKeyCalls (access-key-calls.ts).
 */
export class SvcClient extends AccessKeyCalls {
  constructor(options: SvcClientOptions) {
    super(
      new Transport({
        baseUrl: options.server,
        credentials: options.credentials,
        timeoutMs: options.timeoutMs ?? 10_000,
        retry: { retries: 3, initialBackoffMs: 100, maxBackoffMs: 2_000, ...options.retry },
        fetch: options.fetch ?? (options.tls ? fetchWithTls(options.tls) : globalThis.fetch),
        model: options.model,
        promptId: options.promptId,
      }),
    );
  }

  // Key lifecycle

  createKey(spec: T.KeySpecRequest, opts?: CallOptions): Promise<T.ManagedKey> {
    return this.http.send({ method: 'POST', path: '/v1/keys', body: { spec }, idempotent: false }, opts);
  }

  getKey(id: string, opts?: CallOptions): Promise<T.ManagedKey> {
    return this.http.send({ method: 'GET', path: key(id), idempotent: true }, opts);
  }

  /**
   * One page of the keys the caller may read, newest first; pass `nextCursor` as `cursor` for the next.
   * `tag: ['team:payments', 'env:prod']` finds the keys carrying every one of those tags.
   */
  listKeys(query: T.KeyQuery = {}, opts?: CallOptions): Promise<T.KeyPage> {
    return this.http.send({ method: 'GET', path: '/v1/keys', query: { ...query }, idempotent: true }, opts);
  }

  /** Every page of listKeys, following nextCursor: `for await (const page of client.keyPages({ state: 'Active' }))`. */
  async *keyPages(query: Omit<T.KeyQuery, 'cursor'> = {}, opts?: CallOptions): AsyncGenerator<T.KeyPage> {
    for (let cursor: string | undefined; ; ) {
      const page = await this.listKeys({ ...query, ...(cursor ? { cursor } : {}) }, opts);
      yield page;
      if (!page.nextCursor) return;
      cursor = page.nextCursor;
    }
  }

  activateKey(id: string, opts?: CallOptions): Promise<T.ActivateResult> {
    return this.http.send({ method: 'POST', path: key(id, '/activate'), idempotent: false }, opts);
  }

  rotateKey(id: string, request: T.RotateRequest = {}, opts?: CallOptions): Promise<T.RotateResult> {
    return this.http.send({ method: 'POST', path: key(id, '/rotate'), body: request, idempotent: false }, opts);
  }

  revokeKey(id: string, reason?: string, opts?: CallOptions): Promise<T.RevokeResult> {
    return this.http.send(
      { method: 'POST', path: key(id, '/revoke'), body: reason === undefined ? {} : { reason }, idempotent: false },
      opts,
    );
  }

  compromiseKey(id: string, reason: string, opts?: CallOptions): Promise<T.CompromiseResult> {
    return this.http.send({ method: 'POST', path: key(id, '/compromise'), body: { reason }, idempotent: false }, opts);
  }

  /**
   * Destroys the key at once, or after `waitingDays` (0..30; the deployment's default when left out, and
   * for an agent never less than its minimum): then the answer has `destroyAt` and the key serves no
   * call until a Human cancels (`cancelDestroy`) or the service destroys it.
   */
  destroyKey(id: string, options: { waitingDays?: number } = {}, opts?: CallOptions): Promise<T.DestroyResult> {
    const query = options.waitingDays === undefined ? {} : { waitingDays: String(options.waitingDays) };
    return this.http.send({ method: 'DELETE', path: key(id), query, idempotent: false }, opts);
  }

  /** Cancels a scheduled destruction (Humans only); the key serves again in the state it had. */
  cancelDestroy(id: string, opts?: CallOptions): Promise<T.CancelDestroyResult> {
    return this.http.send({ method: 'POST', path: key(id, '/cancel-destroy'), idempotent: false }, opts);
  }

  /** Erases for good every version below `minVersion` (Humans and Services). */
  trimKey(id: string, minVersion: number, opts?: CallOptions): Promise<T.TrimResult> {
    return this.http.send({ method: 'POST', path: key(id, '/trim'), body: { minVersion }, idempotent: false }, opts);
  }

  publicKey(id: string, version?: number, opts?: CallOptions): Promise<T.PublicKeyResult> {
    return this.http.send({ method: 'GET', path: key(id, '/public-key'), query: { version }, idempotent: true }, opts);
  }

  // Cryptographic operations

  sign(
    id: string,
    message: Uint8Array,
    options: { algorithm?: T.SignatureAlgorithm } = {},
    opts?: CallOptions,
  ): Promise<T.SignResult> {
    return this.signBody(id, { messageBase64: b64(message), algorithm: options.algorithm }, opts);
  }

  /**
   * Signs the hash of a message computed here (RSA and ECDSA; as long as the algorithm's hash): the
   * answer is the signature the message itself would get, and verify accepts it either way.
   */
  signDigest(
    id: string,
    digest: Uint8Array,
    options: { algorithm?: T.SignatureAlgorithm } = {},
    opts?: CallOptions,
  ): Promise<T.SignResult> {
    return this.signBody(id, { digestBase64: b64(digest), algorithm: options.algorithm }, opts);
  }

  private async signBody(id: string, body: object, opts?: CallOptions): Promise<T.SignResult> {
    const r = await this.http.send<{ signatureBase64: string; algorithm: string; keyVersion: number }>(
      { method: 'POST', path: key(id, '/sign'), body, idempotent: false },
      opts,
    );
    return { signature: bytes(r.signatureBase64), algorithm: r.algorithm, keyVersion: r.keyVersion };
  }

  verify(
    id: string,
    message: Uint8Array,
    signature: Uint8Array,
    options: { algorithm?: T.SignatureAlgorithm; keyVersion?: number } = {},
    opts?: CallOptions,
  ): Promise<T.VerifyResult> {
    const body = {
      messageBase64: b64(message),
      signatureBase64: b64(signature),
      algorithm: options.algorithm,
      keyVersion: options.keyVersion,
    };
    return this.http.send({ method: 'POST', path: key(id, '/verify'), body, idempotent: true }, opts);
  }

  /** Checks a signature against the hash of the message (RSA and ECDSA), as signDigest sends it. */
  verifyDigest(
    id: string,
    digest: Uint8Array,
    signature: Uint8Array,
    options: { algorithm?: T.SignatureAlgorithm; keyVersion?: number } = {},
    opts?: CallOptions,
  ): Promise<T.VerifyResult> {
    const body = {
      digestBase64: b64(digest),
      signatureBase64: b64(signature),
      algorithm: options.algorithm,
      keyVersion: options.keyVersion,
    };
    return this.http.send({ method: 'POST', path: key(id, '/verify'), body, idempotent: true }, opts);
  }

  async encrypt(
    id: string,
    plaintext: Uint8Array,
    context?: T.EncryptionContext,
    opts?: CallOptions,
  ): Promise<T.EncryptResult> {
    const r = await this.http.send<{ ciphertextBase64: string; keyVersion: number; algorithm: string }>(
      {
        method: 'POST',
        path: key(id, '/encrypt'),
        body: { plaintextBase64: b64(plaintext), context },
        idempotent: false,
      },
      opts,
    );
    return { ciphertext: bytes(r.ciphertextBase64), keyVersion: r.keyVersion, algorithm: r.algorithm };
  }

  async decrypt(
    id: string,
    ciphertext: Uint8Array,
    context?: T.EncryptionContext,
    opts?: CallOptions,
  ): Promise<T.DecryptResult> {
    const r = await this.http.send<{ plaintextBase64: string; keyVersion: number }>(
      {
        method: 'POST',
        path: key(id, '/decrypt'),
        body: { ciphertextBase64: b64(ciphertext), context },
        idempotent: true,
      },
      opts,
    );
    return { plaintext: bytes(r.plaintextBase64), keyVersion: r.keyVersion };
  }

  async wrap(id: string, dek: Uint8Array, opts?: CallOptions): Promise<T.WrapResult> {
    const r = await this.http.send<{ wrappedDekBase64: string; keyVersion: number; algorithm: string }>(
      { method: 'POST', path: key(id, '/wrap'), body: { dekBase64: b64(dek) }, idempotent: false },
      opts,
    );
    return { wrappedDek: bytes(r.wrappedDekBase64), keyVersion: r.keyVersion, algorithm: r.algorithm };
  }

  async unwrap(id: string, wrappedDek: Uint8Array, opts?: CallOptions): Promise<T.UnwrapResult> {
    const r = await this.http.send<{ dekBase64: string; keyVersion: number }>(
      { method: 'POST', path: key(id, '/unwrap'), body: { wrappedDekBase64: b64(wrappedDek) }, idempotent: true },
      opts,
    );
    return { dek: bytes(r.dekBase64), keyVersion: r.keyVersion };
  }

  // Export and import (bring your own key): Humans and Services only

  /**
   * The material of an exportable key's version (default the current one): raw for AES and HMAC, PKCS#8 DER otherwise.
   */
  async exportKey(id: string, options: { version?: number } = {}, opts?: CallOptions): Promise<T.ExportKeyResult> {
    const r = await this.http.send<{
      id: string;
      keyVersion: number;
      format: 'raw' | 'pkcs8-der';
      materialBase64: string;
    }>(
      {
        method: 'POST',
        path: key(id, '/export'),
        body: options.version === undefined ? {} : { version: options.version },
        idempotent: true,
      },
      opts,
    );
    return { id: r.id, keyVersion: r.keyVersion, format: r.format, material: bytes(r.materialBase64) };
  }

  /** A wrapping public key and a single-use import token (24 hours) for one algorithm and size or curve. */
  getImportParameters(request: T.ImportParametersRequest, opts?: CallOptions): Promise<T.ImportParameters> {
    return this.http.send(
      { method: 'POST', path: '/v1/keys/import-parameters', body: request, idempotent: false },
      opts,
    );
  }

  /**
   * Creates a key (PreActive, origin imported) from material already wrapped under `importToken`'s parameters
   * (wrapKeyMaterial).
   */
  importWrappedKey(
    spec: T.KeySpecRequest,
    importToken: string,
    wrappedMaterial: Uint8Array,
    opts?: CallOptions,
  ): Promise<T.ManagedKey> {
    return this.http.send(
      {
        method: 'POST',
        path: '/v1/keys/import',
        body: { spec, importToken, wrappedMaterialBase64: b64(wrappedMaterial) },
        idempotent: false,
      },
      opts,
    );
  }

  /**
   * Imports plain material in one call: fetches import parameters for the spec's type, wraps the
   * material here (it never travels unwrapped) and imports it. `material` is the raw secret for AES and
   * HMAC, unencrypted PKCS#8 DER for RSA, EC, EdDSA, ML-DSA and SLH-DSA.
   */
  async importKey(spec: T.KeySpecRequest, material: Uint8Array, opts?: CallOptions): Promise<T.ManagedKey> {
    const parameters = await this.getImportParameters(
      {
        algorithm: spec.algorithm,
        ...(spec.sizeBits === undefined ? {} : { sizeBits: spec.sizeBits }),
        ...(spec.curve === undefined ? {} : { curve: spec.curve }),
        ...(spec.parameterSet === undefined ? {} : { parameterSet: spec.parameterSet }),
      },
      opts,
    );
    return this.importWrappedKey(
      spec,
      parameters.importToken,
      wrapKeyMaterial(parameters.wrappingPublicKeyPem, material),
      opts,
    );
  }

  // Data keys, re-encryption and batches

  /**
   * A fresh data key for envelope encryption and its ciphertext under the key; decrypt(ciphertext, context) gives it
   * back.
   */
  async generateDataKey(id: string, options: DataKeyOptions = {}, opts?: CallOptions): Promise<DataKeyResult> {
    const r = await this.http.send<{
      ciphertextBase64: string;
      plaintextBase64?: string;
      keyVersion: number;
      algorithm: string;
    }>({ method: 'POST', path: key(id, '/data-key'), body: options, idempotent: false }, opts);
    return {
      ciphertext: bytes(r.ciphertextBase64),
      ...(r.plaintextBase64 === undefined ? {} : { plaintext: bytes(r.plaintextBase64) }),
      keyVersion: r.keyVersion,
      algorithm: r.algorithm,
    };
  }

  /** Decrypts under `id` and encrypts under the destination (default `id`'s current version) inside the service. */
  async reencrypt(
    id: string,
    ciphertext: Uint8Array,
    options: ReencryptOptions = {},
    opts?: CallOptions,
  ): Promise<ReencryptResult> {
    const r = await this.http.send<{ ciphertextBase64: string; keyVersion: number; sourceKeyVersion: number }>(
      {
        method: 'POST',
        path: key(id, '/reencrypt'),
        body: { ciphertextBase64: b64(ciphertext), ...options },
        idempotent: false,
      },
      opts,
    );
    return { ciphertext: bytes(r.ciphertextBase64), keyVersion: r.keyVersion, sourceKeyVersion: r.sourceKeyVersion };
  }

  /**
   * Up to 1000 items in one call; each result is the item's answer or its BatchItemError (isBatchItemError), in order.
   */
  async encryptBatch(
    id: string,
    items: EncryptItem[],
    opts?: CallOptions,
  ): Promise<Array<T.EncryptResult | BatchItemError>> {
    const results = await this.batch<{ ciphertextBase64: string; keyVersion: number; algorithm: string }>(
      id,
      '/encrypt',
      items.map((i) => ({ plaintextBase64: b64(i.plaintext), context: i.context })),
      false,
      opts,
    );
    return results.map((r) =>
      isBatchItemError(r)
        ? r
        : { ciphertext: bytes(r.ciphertextBase64), keyVersion: r.keyVersion, algorithm: r.algorithm },
    );
  }

  async decryptBatch(
    id: string,
    items: DecryptItem[],
    opts?: CallOptions,
  ): Promise<Array<T.DecryptResult | BatchItemError>> {
    const results = await this.batch<{ plaintextBase64: string; keyVersion: number }>(
      id,
      '/decrypt',
      items.map((i) => ({ ciphertextBase64: b64(i.ciphertext), context: i.context })),
      true,
      opts,
    );
    return results.map((r) =>
      isBatchItemError(r) ? r : { plaintext: bytes(r.plaintextBase64), keyVersion: r.keyVersion },
    );
  }

  async signBatch(id: string, items: SignItem[], opts?: CallOptions): Promise<Array<T.SignResult | BatchItemError>> {
    const results = await this.batch<{ signatureBase64: string; algorithm: string; keyVersion: number }>(
      id,
      '/sign',
      items.map((i) => ({ ...signedOf(i), algorithm: i.algorithm })),
      false,
      opts,
    );
    return results.map((r) =>
      isBatchItemError(r)
        ? r
        : { signature: bytes(r.signatureBase64), algorithm: r.algorithm, keyVersion: r.keyVersion },
    );
  }

  verifyBatch(id: string, items: VerifyItem[], opts?: CallOptions): Promise<Array<T.VerifyResult | BatchItemError>> {
    const body = items.map((i) => ({
      ...signedOf(i),
      signatureBase64: b64(i.signature),
      algorithm: i.algorithm,
      keyVersion: i.keyVersion,
    }));
    return this.batch<T.VerifyResult>(id, '/verify', body, true, opts);
  }

  private async batch<R>(
    id: string,
    path: string,
    items: object[],
    idempotent: boolean,
    opts?: CallOptions,
  ): Promise<Array<R | BatchItemError>> {
    const r = await this.http.send<{ results: Array<R | BatchItemError> }>(
      { method: 'POST', path: key(id, path), body: { items }, idempotent },
      opts,
    );
    return r.results;
  }

  // Agents and tokens

  /** `keys: ['alias:payments', 'name:billing-*']` limits the agent to those keys, on top of its scopes. */
  issueAgent(request: T.IssueAgentRequest, opts?: CallOptions): Promise<T.IssuedAgent> {
    return this.http.send({ method: 'POST', path: '/v1/agents/issue', body: request, idempotent: false }, opts);
  }

  /** The caller's agents, newest first; every agent (or one parent's) for a caller allowed Query on agent:*. */
  listAgents(filter: { parent?: string; limit?: number } = {}, opts?: CallOptions): Promise<T.AgentList> {
    const query = {
      ...(filter.parent === undefined ? {} : { parent: filter.parent }),
      ...(filter.limit === undefined ? {} : { limit: String(filter.limit) }),
    };
    return this.http.send({ method: 'GET', path: '/v1/agents', query, idempotent: true }, opts);
  }

  /** The kill switch: the agent's token is refused from its next call on. Idempotent. */
  revokeAgent(agentId: string, opts?: CallOptions): Promise<T.RevokeAgentResult> {
    return this.http.send(
      { method: 'POST', path: `/v1/agents/${encodeURIComponent(agentId)}/revoke`, idempotent: true },
      opts,
    );
  }

  revokeToken(request: T.RevokeTokenRequest, opts?: CallOptions): Promise<T.RevokeTokenResult> {
    return this.http.send({ method: 'POST', path: '/v1/tokens/revoke', body: request, idempotent: false }, opts);
  }

  // Audit and advisor (reads)

  queryAudit(query: T.AuditQuery = {}, opts?: CallOptions): Promise<T.AuditPage> {
    return this.http.send({ method: 'GET', path: '/v1/audit', query, idempotent: true }, opts);
  }

  /** Recomputes the audit trail's per-node hash chains; `valid: false` names the first broken row. */
  verifyAudit(query: T.AuditVerifyQuery = {}, opts?: CallOptions): Promise<T.AuditVerification> {
    return this.http.send({ method: 'GET', path: '/v1/audit/verify', query, idempotent: true }, opts);
  }

  advisorScan(query: T.AdvisorScanQuery = {}, opts?: CallOptions): Promise<T.AdvisorScanReport> {
    return this.http.send({ method: 'GET', path: '/v1/advisor/scan', query, idempotent: true }, opts);
  }

  advisorExplain(
    agentId: string,
    query: T.AdvisorExplainQuery = {},
    opts?: CallOptions,
  ): Promise<T.AdvisorExplanation> {
    return this.http.send(
      { method: 'GET', path: `/v1/advisor/explain/${encodeURIComponent(agentId)}`, query, idempotent: true },
      opts,
    );
  }

  // Operational

  health(opts?: CallOptions): Promise<{ status: 'ok' }> {
    return this.http.send({ method: 'GET', path: '/healthz', idempotent: true }, opts);
  }
}
