import type { KMSClient } from '@aws-sdk/client-kms';
import { Counter, Histogram, type Registry } from 'prom-client';
import {
  type Logger,
  type RootOfTrust,
  type RootOfTrustContext,
  SvcError,
  type WrappedKey,
} from '../../../kernel/index.ts';

export interface CloudKmsSettings {
  region: string;
  kekArn: string;
  previousKekArns: string[];
  endpoint: string;
  timeoutMs: number;
}

/** KMS answers that mean "the KEK cannot be used now": the operation answers 503 and is retried later. */
const UNAVAILABLE: Record<string, { retryAfterSeconds: number; why: string }> = {
  ThrottlingException: { retryAfterSeconds: 1, why: 'KMS is throttling requests' },
  LimitExceededException: { retryAfterSeconds: 1, why: 'KMS request quota exceeded' },
  DisabledException: { retryAfterSeconds: 30, why: 'the KEK is disabled in KMS' },
  KMSInvalidStateException: { retryAfterSeconds: 30, why: 'the KEK is not in a usable state in KMS' },
  KeyUnavailableException: { retryAfterSeconds: 5, why: 'the KEK is unavailable in KMS' },
  DependencyTimeoutException: { retryAfterSeconds: 5, why: 'KMS timed out' },
  KMSInternalException: { retryAfterSeconds: 5, why: 'KMS failed internally' },
  AccessDeniedException: { retryAfterSeconds: 30, why: 'KMS denies this service the use of the KEK' },
};

/**
 * The cloud KMS root of trust (AWS KMS API): each key-wrapping key is encrypted with KMS Encrypt under the
 * KEK, with encryption context {svcKeyId: <key id>} so a wrapped KWK is bound to its key in KMS's own
 * check (and in CloudTrail). The KEK never leaves KMS. A KMS that cannot be reached, throttles, or whose
 * KEK is disabled makes operations answer 503 with Retry-After; the next call after it recovers works,
 * with no restart. Unwrapped KWKs are cached by the key service, so KMS is called once per key per TTL.
 */
export class CloudKmsRootOfTrust implements RootOfTrust {
  readonly name = 'cloud-kms';
  private client: KMSClient | undefined;
  private sdk: typeof import('@aws-sdk/client-kms') | undefined;
  private readonly calls: Counter<'call' | 'result'>;
  private readonly latency: Histogram<'call'>;

  constructor(
    private readonly settings: CloudKmsSettings,
    registry: Registry,
    private readonly logger: Logger,
    private readonly options: { probeAtStart?: boolean } = {},
  ) {
    this.calls = new Counter({
      name: 'svc_root_of_trust_kms_calls_total',
      help: 'Calls to the cloud KMS by the root of trust, by call and result (ok or the error name).',
      labelNames: ['call', 'result'],
      registers: [registry],
    });
    this.latency = new Histogram({
      name: 'svc_root_of_trust_kms_call_duration_seconds',
      help: 'Latency of cloud KMS calls.',
      labelNames: ['call'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    });
  }

  async start(): Promise<void> {
    // Loaded at start, not with the module: only a deployment that uses a cloud KMS pays for the AWS SDK.
    this.sdk = await import('@aws-sdk/client-kms');
    this.client = new this.sdk.KMSClient({
      region: this.settings.region,
      ...(this.settings.endpoint ? { endpoint: this.settings.endpoint } : {}),
      maxAttempts: 2,
      requestHandler: { requestTimeout: this.settings.timeoutMs, connectionTimeout: this.settings.timeoutMs },
    });
    if (this.options.probeAtStart === false) return;
    await this.probe().catch((err: Error) => {
      // An outage (KMS unreachable or throttling, the KEK disabled or denied) is not the configuration's
      // fault and ends by itself: boot, answer 503 and report `rootOfTrust` unready until it does, so the
      // node recovers without a restart. Anything else (a KEK that does not exist) fails the boot.
      const where = `the cloud KMS KEK ${this.settings.kekArn}${this.settings.endpoint ? ` at ${this.settings.endpoint}` : ''}`;
      if (err instanceof SvcError && err.code === 'ServiceUnavailable') {
        this.logger.warn(`${where} cannot be used now; calls that need it answer 503 until it can`, {
          error: err.message,
        });
        return;
      }
      throw new Error(`${where} is not usable: ${err.message}`);
    });
  }

  async stop(): Promise<void> {
    this.client?.destroy();
    this.client = undefined;
  }

  /** Ready while KMS answers and the current KEK is enabled. */
  async probe(): Promise<void> {
    const out = await this.call('DescribeKey', () =>
      this.kms().send(new (this.commands().DescribeKeyCommand)({ KeyId: this.settings.kekArn })),
    );
    const state = out.KeyMetadata?.KeyState;
    if (state !== 'Enabled')
      throw new SvcError('ServiceUnavailable', `the KEK is ${state ?? 'in an unknown state'} in KMS`, {
        retryAfterSeconds: 30,
      });
  }

  currentKekId(): string {
    return this.settings.kekArn;
  }

  kekIds(): string[] {
    return [this.settings.kekArn, ...this.settings.previousKekArns.filter((a) => a !== this.settings.kekArn)];
  }

  async wrap(kwk: Buffer, keyId: string, ctx?: RootOfTrustContext): Promise<WrappedKey> {
    const out = await this.call('Encrypt', () =>
      this.kms().send(
        new (this.commands().EncryptCommand)({
          KeyId: this.settings.kekArn,
          Plaintext: kwk,
          EncryptionContext: { svcKeyId: keyId },
        }),
        { abortSignal: ctx?.signal },
      ),
    );
    if (!out.CiphertextBlob) throw new Error('KMS Encrypt returned no ciphertext');
    return { kekId: this.settings.kekArn, blob: Buffer.from(out.CiphertextBlob) };
  }

  async unwrap(wrapped: WrappedKey, keyId: string, ctx?: RootOfTrustContext): Promise<Buffer> {
    if (!this.kekIds().includes(wrapped.kekId))
      throw new Error(
        `the KEK ${wrapped.kekId} is not configured (list it in SVC_CRYPTO_CLOUD_KMS_PREVIOUS_KEK_ARNS until rewrap has moved every key off it)`,
      );
    const out = await this.call('Decrypt', () =>
      this.kms().send(
        new (this.commands().DecryptCommand)({
          KeyId: wrapped.kekId,
          CiphertextBlob: wrapped.blob,
          EncryptionContext: { svcKeyId: keyId },
        }),
        { abortSignal: ctx?.signal },
      ),
    );
    if (!out.Plaintext) throw new Error('KMS Decrypt returned no plaintext');
    return Buffer.from(out.Plaintext);
  }

  private kms(): KMSClient {
    if (!this.client) throw new Error('cloud-kms root of trust is not started');
    return this.client;
  }
  private commands(): typeof import('@aws-sdk/client-kms') {
    if (!this.sdk) throw new Error('cloud-kms root of trust is not started');
    return this.sdk;
  }

  /** One KMS call, measured, with its failures mapped: unavailability to 503, the rest thrown as they are. */
  private async call<T>(name: string, send: () => Promise<T>): Promise<T> {
    const end = this.latency.startTimer({ call: name });
    try {
      const out = await send();
      this.calls.inc({ call: name, result: 'ok' });
      return out;
    } catch (err) {
      const e = err as { name?: string; code?: string; message?: string; $fault?: string };
      const kind = e.name ?? 'Error';
      this.calls.inc({ call: name, result: kind });
      const known = UNAVAILABLE[kind];
      if (known)
        throw new SvcError('ServiceUnavailable', `${known.why}; retry later`, {
          retryAfterSeconds: known.retryAfterSeconds,
        });
      // No answer from KMS at all (refused, reset, timed out, no route): service errors carry $fault.
      if (e.$fault === undefined || /TimeoutError|RequestTimeout/i.test(kind)) {
        this.logger.warn('cloud KMS unreachable', { call: name, error: kind });
        throw new SvcError('ServiceUnavailable', 'the cloud KMS is unreachable; retry later', { retryAfterSeconds: 5 });
      }
      throw err;
    } finally {
      end();
    }
  }
}
