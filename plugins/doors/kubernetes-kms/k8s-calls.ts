import { randomBytes, randomUUID } from 'node:crypto';
import {
  type Caller,
  ciphertextKeyId,
  isRequestId,
  isSvcError,
  nameCiphertext,
  type OperationRunner,
  SvcError,
} from '../../../kernel/index.ts';
import type { K8sKmsConfig } from './config.ts';

/**
 * Largest plaintext Encrypt takes. kube-apiserver (KMS v2) encrypts only its 32-byte data-encryption key or
 * seed, and refuses a ciphertext over 1 kB from the plugin: the ciphertext here is the plaintext plus 50 bytes
 * (key name 17, envelope header 33), so 512 bytes leaves room and refuses what no apiserver sends.
 */
export const PLAINTEXT_MAX_BYTES = 512;
/** Largest ciphertext Decrypt takes: kube-apiserver stores none longer (1 kB). */
export const CIPHERTEXT_MAX_BYTES = 1024;
/** The API version Status answers; kube-apiserver's EncryptionConfiguration says `apiVersion: v2`. */
export const KMS_API_VERSION = 'v2';

export interface StatusAnswer {
  version: string;
  healthz: string;
  key_id: string;
}
export interface EncryptAnswer {
  ciphertext: Buffer;
  key_id: string;
  annotations: Record<string, Buffer>;
}
export interface DecryptAnswer {
  plaintext: Buffer;
}

/**
 * The key_id kube-apiserver stores beside each object and compares with Status's: the key's id (never the alias,
 * which may move) and its version, so it is stable for a version and changes when the key rotates.
 */
export const keyIdOf = (keyId: string, version: number): string => `${keyId}:v${version}`;

/** The request id of a call: kube-apiserver's uid when it is one (a UUID), so its log and the audit trail meet. */
export const requestIdOf = (uid: unknown): string => (typeof uid === 'string' && isRequestId(uid) ? uid : randomUUID());

/**
 * The three calls of the KMS v2 API, each as service operations run through the one pipeline as the configured
 * Service principal with door `k8s`: authorized by policy, rate limited, audited (never the plaintext) and measured
 * like a REST call. Input the API can carry but the service refuses is refused through the pipeline too, so the
 * refusal is audited under the operation it was for.
 */
export class K8sKmsCalls {
  constructor(
    private readonly runner: OperationRunner,
    private readonly config: K8sKmsConfig,
    private readonly door: string,
  ) {}

  /**
   * Healthy when the key encrypts and decrypts now: a round trip of 16 random bytes through the pipeline (two
   * audit records, `k8s.method: Status`), which also reads the key's current version for key_id. A refusal
   * (the key disabled, the policy, the rate limit) is the call's gRPC error, which kube-apiserver's health check
   * reports with its message.
   */
  async status(requestId: string): Promise<StatusAnswer> {
    const caller = this.caller('Status', requestId);
    const probe = randomBytes(16);
    const sealed = await this.seal(probe, caller);
    const opened = await this.open(sealed.ciphertext, caller);
    if (!opened.equals(probe)) throw new Error('the Status round trip answered other bytes than it encrypted');
    return { version: KMS_API_VERSION, healthz: 'ok', key_id: sealed.key_id };
  }

  async encrypt(request: { plaintext?: Buffer }, requestId: string): Promise<EncryptAnswer> {
    const plaintext = request.plaintext ?? Buffer.alloc(0);
    const rejected =
      plaintext.length === 0 || plaintext.length > PLAINTEXT_MAX_BYTES
        ? new SvcError(
            'InvalidField',
            `plaintext is ${plaintext.length} bytes; the plugin encrypts 1..${PLAINTEXT_MAX_BYTES} ` +
              '(kube-apiserver sends its 32-byte data key)',
          )
        : undefined;
    return this.seal(plaintext, this.caller('Encrypt', requestId), rejected);
  }

  /**
   * Opens a ciphertext under the key it names, whatever the key_id and annotations sent with it say (the
   * ciphertext carries its key and version, authenticated): one made before k8s.keyId's alias moved to another
   * key still opens under its own key, while the policy allows the principal Decrypt on that key.
   */
  async decrypt(request: { ciphertext?: Buffer }, requestId: string): Promise<DecryptAnswer> {
    const ciphertext = request.ciphertext ?? Buffer.alloc(0);
    const rejected =
      ciphertext.length === 0 || ciphertext.length > CIPHERTEXT_MAX_BYTES
        ? new SvcError(
            'InvalidField',
            `ciphertext is ${ciphertext.length} bytes; the plugin's ciphertexts are 1..${CIPHERTEXT_MAX_BYTES}`,
          )
        : undefined;
    return { plaintext: await this.open(ciphertext, this.caller('Decrypt', requestId), rejected) };
  }

  /**
   * Refuses a call whose message the plugin could not read (too long, not protobuf), through the pipeline as
   * the operation it stood for (Status as the Encrypt it starts with), so it is authorized and recorded.
   */
  async refuse(method: 'Status' | 'Encrypt' | 'Decrypt', requestId: string, refusal: SvcError): Promise<never> {
    await this.runner.run(
      method === 'Decrypt' ? 'Decrypt' : 'Encrypt',
      { id: this.config.keyId },
      this.caller(method, requestId),
      refusal,
    );
    throw refusal;
  }

  private caller(method: 'Status' | 'Encrypt' | 'Decrypt', requestId: string): Caller {
    return { principal: this.config.principal, requestId, door: this.door, context: { 'k8s.method': method } };
  }

  private async seal(plaintext: Buffer, caller: Caller, rejected?: SvcError): Promise<EncryptAnswer> {
    const input: Record<string, unknown> = { id: this.config.keyId };
    if (!rejected) input.plaintextBase64 = plaintext.toString('base64');
    const result = (await this.runner.run('Encrypt', input, caller, rejected)) as {
      ciphertextBase64: string;
      keyVersion: number;
    };
    // The pipeline resolved an alias in `id` to the key it names at this call.
    const keyId = String(input.id);
    return {
      ciphertext: nameCiphertext(keyId, Buffer.from(result.ciphertextBase64, 'base64')),
      key_id: keyIdOf(keyId, result.keyVersion),
      annotations: {},
    };
  }

  private async open(ciphertext: Buffer, caller: Caller, rejected?: SvcError): Promise<Buffer> {
    // A refused ciphertext is audited under the configured key: its bytes name nothing worth trusting.
    const named = rejected ? undefined : ciphertextKeyId(ciphertext);
    const input: Record<string, unknown> = { id: named ?? this.config.keyId };
    if (!rejected) input.ciphertextBase64 = ciphertext.toString('base64');
    try {
      const result = (await this.runner.run('Decrypt', input, caller, rejected)) as { plaintextBase64: string };
      return Buffer.from(result.plaintextBase64, 'base64');
    } catch (err) {
      // Bytes that only look like a named ciphertext name a key that does not exist: corrupted input, not a lookup.
      if (named !== undefined && isSvcError(err) && err.code === 'KeyNotFound')
        throw new SvcError(
          'DecryptionFailed',
          `the ciphertext names key ${named}, which this service does not hold: it is corrupted, or its key was destroyed`,
        );
      throw err;
    }
  }
}
