import { execFileSync } from 'node:child_process';
import { createHash, createHmac, createPublicKey } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { KMSClient } from '@aws-sdk/client-kms';
import { SignatureV4 } from '@smithy/signature-v4';
import type { SourceData } from '@smithy/types';
import { type TestService, tempDir } from './service.ts';

export interface AccessKey {
  accessKeyId: string;
  secretAccessKey: string;
}

/** An access key for `user` (a Human in dev mode), created over REST as a caller would. */
export async function accessKeyFor(
  svc: TestService,
  user: string,
  body: Record<string, unknown> = {},
): Promise<AccessKey> {
  const created = await svc.client(user).post('/v1/access-keys', body);
  if (created.status !== 201)
    throw new Error(`access key for ${user}: ${created.status} ${JSON.stringify(created.body)}`);
  return { accessKeyId: created.body.accessKeyId, secretAccessKey: created.body.secretAccessKey };
}

/** The AWS SDK's KMS client pointed at the service's AWS door, as any application would by endpoint override. */
export function kmsClient(
  svc: TestService,
  key: AccessKey & { sessionToken?: string },
  region = 'eu-central-1',
): KMSClient {
  return new KMSClient({
    endpoint: `${svc.url}/aws/kms`,
    region,
    credentials: key,
    maxAttempts: 1,
  });
}

/** node:crypto behind the SDK signer's hash interface (the SDK ships this for browsers and Node separately). */
const bytesOf = (data: SourceData): string | Buffer =>
  typeof data === 'string'
    ? data
    : ArrayBuffer.isView(data)
      ? Buffer.from(data.buffer, data.byteOffset, data.byteLength)
      : Buffer.from(data);

export class Sha256 {
  private readonly hash: ReturnType<typeof createHash> | ReturnType<typeof createHmac>;
  constructor(secret?: SourceData) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytesOf(secret));
  }
  update(data: SourceData): void {
    this.hash.update(bytesOf(data));
  }
  async digest(): Promise<Uint8Array> {
    return this.hash.digest();
  }
}

export interface RawAnswer {
  status: number;
  body: any;
}

/**
 * One request to the AWS door signed by the SDK's own signer, with what a test needs to vary: the body
 * as raw text, the target, the signing time, headers added after signing (not signed).
 */
export async function signedRequest(
  svc: TestService,
  key: AccessKey & { sessionToken?: string },
  target: string,
  body: string,
  options: { at?: Date; region?: string; afterSigning?: Record<string, string> } = {},
): Promise<RawAnswer> {
  return awsRequest(`${svc.url}/aws/kms`, key, target, body, options);
}

/**
 * One JSON 1.1 request to any AWS KMS endpoint (the door, or moto's at its root), signed by the SDK's
 * own signer; the answer as it came, its body parsed but not interpreted (so members an SDK would drop
 * are still there).
 */
export async function awsRequest(
  endpoint: string,
  key: AccessKey & { sessionToken?: string },
  target: string,
  body: string,
  options: { at?: Date; region?: string; afterSigning?: Record<string, string> } = {},
): Promise<RawAnswer> {
  const url = new URL(endpoint);
  const signer = new SignatureV4({
    service: 'kms',
    region: options.region ?? 'eu-central-1',
    sha256: Sha256,
    credentials: key,
  });
  const request = await signer.sign(
    {
      method: 'POST',
      protocol: 'http:',
      hostname: url.hostname,
      port: Number(url.port),
      path: url.pathname,
      headers: {
        host: url.host,
        'content-type': 'application/x-amz-json-1.1',
        'x-amz-target': target.includes('.') ? target : `TrentService.${target}`,
      },
      body,
    },
    options.at ? { signingDate: options.at } : {},
  );
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...(request.headers as Record<string, string>), ...options.afterSigning },
    body,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/**
 * OpenSSL's verdict on a signature made by a key whose public key is `publicKeyDer` (SPKI, as
 * GetPublicKey answers it): over the message (`dgst`, or `pkeyutl -rawin` for Ed25519 with no hash) or,
 * with `digest`, over the digest given (`pkeyutl`).
 */
export function opensslVerifies(
  publicKeyDer: Uint8Array,
  signature: Uint8Array,
  data: Buffer,
  how: { hash?: string; pss?: boolean; digest?: boolean },
): boolean {
  const dir = tempDir('svc-aws-openssl-');
  const pem = path.join(dir, 'pub.pem');
  writeFileSync(
    pem,
    createPublicKey({ key: Buffer.from(publicKeyDer), format: 'der', type: 'spki' }).export({
      type: 'spki',
      format: 'pem',
    }),
  );
  writeFileSync(path.join(dir, 'sig'), signature);
  writeFileSync(path.join(dir, 'data'), data);
  const pss = how.pss ? ['-pkeyopt', 'rsa_padding_mode:pss', '-pkeyopt', 'rsa_pss_saltlen:digest'] : [];
  const args = how.digest
    ? [
        'pkeyutl',
        '-verify',
        '-pubin',
        '-inkey',
        pem,
        '-in',
        path.join(dir, 'data'),
        '-sigfile',
        path.join(dir, 'sig'),
        '-pkeyopt',
        `digest:${how.hash}`,
        ...pss,
      ]
    : how.hash
      ? [
          'dgst',
          `-${how.hash}`,
          '-verify',
          pem,
          ...(how.pss ? ['-sigopt', 'rsa_padding_mode:pss', '-sigopt', 'rsa_pss_saltlen:digest'] : []),
          '-signature',
          path.join(dir, 'sig'),
          path.join(dir, 'data'),
        ]
      : [
          'pkeyutl',
          '-verify',
          '-pubin',
          '-inkey',
          pem,
          '-rawin',
          '-in',
          path.join(dir, 'data'),
          '-sigfile',
          path.join(dir, 'sig'),
        ];
  try {
    execFileSync('openssl', args, { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** How an SDK call ended: the exception's name, message and HTTP status, or 'no error'. */
export const failure = async (promise: Promise<unknown>) =>
  promise.then(
    () => ({ name: 'no error', message: '', status: undefined as number | undefined }),
    (err: Error & { $metadata?: { httpStatusCode?: number } }) => ({
      name: err.name,
      message: err.message,
      status: err.$metadata?.httpStatusCode,
    }),
  );
