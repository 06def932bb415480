import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { Counter, Histogram, type Registry } from 'prom-client';
import { type Logger, type RootOfTrust, SvcError, type WrappedKey } from '../../../kernel/index.ts';
import { pkcs11KekId, type Pkcs11Settings } from './config.ts';
import { ckr } from './pkcs11-errors.ts';
import { type Pkcs11Lease, Pkcs11Token } from './pkcs11-token.ts';

/**
 * Blob formats: the first byte says how the rest was made, so a KEK's blobs stay readable if the preferred mechanism
 * changes.
 */
const KWP_FORMAT = 0x11;
const GCM_FORMAT = 0x12;
const NONCE_BYTES = 16;
const BINDING_BYTES = 16;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The managed key a KWK belongs to, as 16 bytes sealed in with it (AES key wrap has no associated data). */
const binding = (keyId: string) =>
  createHash('sha256').update(`svc-kms kwk\0${keyId}`).digest().subarray(0, BINDING_BYTES);
const gcmAad = (keyId: string) => Buffer.from(`svc-kms kwk:${keyId}`);

/**
 * The PKCS#11 root of trust: KEKs are AES-256 keys on an HSM token, sensitive and never extractable, and
 * every key-wrapping key is wrapped and unwrapped by the token.
 *
 * AES key wrap with padding (RFC 5649; CKM_AES_KEY_WRAP_PAD), where the token has it, wraps a short-lived
 * session object holding nonce | binding | KWK: the nonce makes two wraps of one KWK differ (key wrap is
 * deterministic), the binding (a hash of the managed key's id, checked on unwrap) keeps a wrapped KWK from
 * opening as another key's, and the wrap's own integrity check refuses any changed byte. Where the token
 * lacks it, AES-GCM (CKM_AES_GCM) encrypts the KWK on the token with a random IV and the key id as AAD.
 * Blob: format byte, then the wrapped bytes (KWP) or IV | ciphertext | tag (GCM).
 *
 * The binding's calls that take time (wrap, unwrap, encrypt, decrypt) are its asynchronous ones, which
 * run on libuv's thread pool; the rest (session objects, attributes) are short calls to the library.
 */
export class Pkcs11RootOfTrust implements RootOfTrust {
  readonly name = 'pkcs11';
  private readonly token: Pkcs11Token;
  private readonly labelsById = new Map<string, string>();
  private readonly calls: Counter<'call' | 'result'>;
  private readonly latency: Histogram<'call'>;

  constructor(
    private readonly settings: Pkcs11Settings,
    registry: Registry,
    logger: Pick<Logger, 'warn' | 'error'>,
    options: { role?: 'current' | 'previous'; preferGcm?: boolean } = {},
  ) {
    const kekLabels = [...new Set([settings.kekLabel, ...settings.previousKekLabels])];
    for (const label of kekLabels) this.labelsById.set(pkcs11KekId(settings.tokenLabel, label), label);
    this.token = new Pkcs11Token({ ...settings, kekLabels }, logger, {
      needsWrap: (options.role ?? 'current') === 'current',
      preferGcm: options.preferGcm,
    });
    this.calls = new Counter({
      name: 'svc_root_of_trust_pkcs11_calls_total',
      help: 'Calls to the PKCS#11 token by the root of trust, by call and result (ok or the CKR_ return value).',
      labelNames: ['call', 'result'],
      registers: [registry],
    });
    this.latency = new Histogram({
      name: 'svc_root_of_trust_pkcs11_call_duration_seconds',
      help: 'Latency of PKCS#11 root-of-trust calls (wrap, unwrap, probe).',
      labelNames: ['call'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers: [registry],
    });
  }

  async start(): Promise<void> {
    await this.token.open();
  }

  async stop(): Promise<void> {
    this.token.close();
  }

  /** Ready while the token answers and holds the current KEK. */
  async probe(): Promise<void> {
    await this.measured('probe', () => this.token.check());
  }

  currentKekId(): string {
    return pkcs11KekId(this.settings.tokenLabel, this.settings.kekLabel);
  }

  kekIds(): string[] {
    return [...this.labelsById.keys()];
  }

  async wrap(kwk: Buffer, keyId: string): Promise<WrappedKey> {
    const kekId = this.currentKekId();
    const label = this.settings.kekLabel;
    const blob = await this.measured('wrap', () =>
      this.token.withSession('wrap', (lease) =>
        lease.mechanism === 'aes-gcm' ? wrapGcm(lease, label, kwk, keyId) : wrapKwp(lease, label, kwk, keyId),
      ),
    );
    return { kekId, blob };
  }

  async unwrap(wrapped: WrappedKey, keyId: string): Promise<Buffer> {
    const label = this.labelsById.get(wrapped.kekId);
    if (label === undefined)
      throw new Error(
        `the KEK ${wrapped.kekId} is not configured (list its label in SVC_CRYPTO_PKCS11_PREVIOUS_KEK_LABELS until rewrap has moved every key off it)`,
      );
    const format = wrapped.blob[0];
    if (format !== KWP_FORMAT && format !== GCM_FORMAT)
      throw new Error('not a key-wrapping key wrapped by the pkcs11 root of trust');
    return this.measured('unwrap', async () => {
      try {
        return await this.token.withSession('unwrap', (lease) =>
          format === GCM_FORMAT
            ? unwrapGcm(lease, label, wrapped.blob, keyId)
            : unwrapKwp(lease, label, wrapped.blob, keyId),
        );
      } catch (err) {
        // The token is well (an outage became SvcError ServiceUnavailable) and still refuses: the blob was changed, or
        // is another key's.
        const code = ckr(err);
        if (!code) throw err;
        throw Object.assign(
          new Error(
            `the token refused to unwrap the key-wrapping key of key ${keyId} (${code}): the blob is damaged or not this key's`,
          ),
          { code },
        );
      }
    });
  }

  /** One call to the token, counted by its result and timed. */
  private async measured<T>(call: string, run: () => Promise<T>): Promise<T> {
    const end = this.latency.startTimer({ call });
    try {
      const out = await run();
      this.calls.inc({ call, result: 'ok' });
      return out;
    } catch (err) {
      this.calls.inc({
        call,
        result:
          err instanceof SvcError
            ? err.code
            : (((err as { code?: unknown }).code as string | undefined) ?? ckr(err) ?? 'Error'),
      });
      throw err;
    } finally {
      end();
    }
  }
}

const sessionSecret = (lease: Pkcs11Lease, value?: Buffer) => {
  const { api } = lease;
  return [
    { type: api.CKA_CLASS, value: api.CKO_SECRET_KEY },
    { type: api.CKA_KEY_TYPE, value: api.CKK_GENERIC_SECRET },
    { type: api.CKA_TOKEN, value: false },
    { type: api.CKA_SENSITIVE, value: false },
    { type: api.CKA_EXTRACTABLE, value: true },
    ...(value ? [{ type: api.CKA_VALUE, value }] : []),
  ];
};

const destroyQuietly = (lease: Pkcs11Lease, handle: Buffer) => {
  try {
    lease.lib.C_DestroyObject(lease.session, handle);
  } catch {
    // a session object goes with its session anyway
  }
};

async function wrapKwp(lease: Pkcs11Lease, label: string, kwk: Buffer, keyId: string): Promise<Buffer> {
  const payload = Buffer.concat([randomBytes(NONCE_BYTES), binding(keyId), kwk]);
  const object = lease.lib.C_CreateObject(lease.session, sessionSecret(lease, payload));
  payload.fill(0);
  try {
    const wrapped = await lease.lib.C_WrapKeyAsync(
      lease.session,
      { mechanism: lease.api.CKM_AES_KEY_WRAP_PAD },
      lease.kek(label),
      object,
      Buffer.alloc(NONCE_BYTES + BINDING_BYTES + kwk.length + 16),
    );
    return Buffer.concat([Buffer.from([KWP_FORMAT]), wrapped]);
  } finally {
    destroyQuietly(lease, object);
  }
}

async function unwrapKwp(lease: Pkcs11Lease, label: string, blob: Buffer, keyId: string): Promise<Buffer> {
  if (blob.length < 1 + 16 + NONCE_BYTES + BINDING_BYTES)
    throw new Error('a wrapped key-wrapping key too short to be one');
  const object = await lease.lib.C_UnwrapKeyAsync(
    lease.session,
    { mechanism: lease.api.CKM_AES_KEY_WRAP_PAD },
    lease.kek(label),
    blob.subarray(1),
    sessionSecret(lease),
  );
  let payload: Buffer | undefined;
  try {
    payload = lease.lib.C_GetAttributeValue(lease.session, object, [{ type: lease.api.CKA_VALUE }])[0]?.value as
      | Buffer
      | undefined;
  } finally {
    destroyQuietly(lease, object);
  }
  if (!payload || payload.length <= NONCE_BYTES + BINDING_BYTES)
    throw new Error('the token unwrapped something that is not a key-wrapping key');
  try {
    if (!timingSafeEqual(payload.subarray(NONCE_BYTES, NONCE_BYTES + BINDING_BYTES), binding(keyId)))
      throw new Error(`the wrapped key-wrapping key is not key ${keyId}'s`);
    return Buffer.from(payload.subarray(NONCE_BYTES + BINDING_BYTES));
  } finally {
    payload.fill(0);
  }
}

const gcm = (lease: Pkcs11Lease, iv: Buffer, keyId: string) => ({
  mechanism: lease.api.CKM_AES_GCM,
  parameter: {
    type: lease.api.CK_PARAMS_AES_GCM,
    iv,
    ivBits: IV_BYTES * 8,
    aad: gcmAad(keyId),
    tagBits: TAG_BYTES * 8,
  },
});

async function wrapGcm(lease: Pkcs11Lease, label: string, kwk: Buffer, keyId: string): Promise<Buffer> {
  const iv = randomBytes(IV_BYTES);
  lease.lib.C_EncryptInit(lease.session, gcm(lease, iv, keyId), lease.kek(label));
  const sealed = await lease.lib.C_EncryptAsync(lease.session, kwk, Buffer.alloc(kwk.length + TAG_BYTES + 16));
  return Buffer.concat([Buffer.from([GCM_FORMAT]), iv, sealed]);
}

async function unwrapGcm(lease: Pkcs11Lease, label: string, blob: Buffer, keyId: string): Promise<Buffer> {
  if (blob.length < 1 + IV_BYTES + TAG_BYTES + 1) throw new Error('a wrapped key-wrapping key too short to be one');
  lease.lib.C_DecryptInit(lease.session, gcm(lease, blob.subarray(1, 1 + IV_BYTES), keyId), lease.kek(label));
  // The binding answers with a slice of the buffer it was given: the KWK, and nothing else of it is kept.
  return lease.lib.C_DecryptAsync(lease.session, blob.subarray(1 + IV_BYTES), Buffer.alloc(blob.length));
}
