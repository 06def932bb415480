import { SignatureV4 } from '@smithy/signature-v4';
import { Sha256 } from '../../test/helpers/aws-kms.ts';

/** An access key for the bench's caller, made over REST. */
export async function benchAccessKey(
  base: string,
  credential: Record<string, string> = { 'X-Svc-User': 'bench' },
): Promise<{ accessKeyId: string; secretAccessKey: string }> {
  const made = await fetch(`${base}/v1/access-keys`, {
    method: 'POST',
    headers: { ...credential, 'Content-Type': 'application/json' },
    body: '{}',
  });
  if (made.status !== 201) throw new Error(`access key: HTTP ${made.status} ${await made.text()}`);
  return (await made.json()) as { accessKeyId: string; secretAccessKey: string };
}

/**
 * The headers of an AWS KMS request signed now, as the JavaScript SDK signs it (host, content-type,
 * x-amz-date, x-amz-target); valid for 5 minutes, so a load can send it again and again and the door
 * verifies each. Content-Type under the name the harness uses, so the signed value replaces its own.
 */
export async function signedAwsHeaders(
  url: URL,
  target: string,
  body: unknown,
  credentials: { accessKeyId: string; secretAccessKey: string },
): Promise<Record<string, string>> {
  const signer = new SignatureV4({ service: 'kms', region: 'eu-central-1', sha256: Sha256, credentials });
  const signed = await signer.sign({
    method: 'POST',
    protocol: url.protocol,
    hostname: url.hostname,
    port: Number(url.port),
    path: url.pathname,
    headers: { host: url.host, 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': `TrentService.${target}` },
    body: JSON.stringify(body),
  });
  const { 'content-type': contentType, ...rest } = signed.headers as Record<string, string>;
  return { ...rest, 'Content-Type': contentType! };
}
