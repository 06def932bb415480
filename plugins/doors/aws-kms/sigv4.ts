import crypto, { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * AWS Signature Version 4, verified from the specification
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html) with node:crypto. The
 * request is canonicalised from what arrived (its raw header lines, not a re-signing with an SDK's
 * signer), because clients sign different header sets: the AWS CLI signs fewer headers than the SDKs.
 */

/** The exceptions AWS answers for a request whose signature it does not accept. */
export type SigV4Exception =
  | 'MissingAuthenticationTokenException'
  | 'IncompleteSignatureException'
  | 'InvalidSignatureException'
  | 'UnrecognizedClientException';

export class SigV4Refusal extends Error {
  constructor(
    readonly type: SigV4Exception,
    message: string,
  ) {
    super(message);
    this.name = 'SigV4Refusal';
  }
}

/** A request as it arrived: the method, the request target (path and query, as sent) and Node's rawHeaders. */
export interface ArrivedRequest {
  method: string;
  target: string;
  rawHeaders: readonly string[];
  body: Buffer;
}

/** Who signed, and for what scope. */
export interface SignedBy {
  accessKeyId: string;
  region: string;
  /** `X-Amz-Security-Token`, when sent (and signed): an agent token, for the door to authenticate. */
  sessionToken?: string;
}

const ALGORITHM = 'AWS4-HMAC-SHA256';
const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([A-Z0-9]{16,128})\/(\d{8})\/([a-z0-9-]{1,32})\/([a-z0-9-]{1,32})\/aws4_request, ?SignedHeaders=([a-z0-9;-]{1,2048}), ?Signature=([0-9a-f]{64})$/;
const AMZ_DATE = /^(\d{8})T\d{6}Z$/;

const PLAIN_PATH = /^[A-Za-z0-9\-._~/]*$/;
// node:crypto's one-shot hash (Node 20.12 and later) where there is one: a Hash object per call costs
// more than hashing a request's few kilobytes.
const sha256Hex: (data: string | Buffer) => string =
  typeof crypto.hash === 'function'
    ? (data) => crypto.hash('sha256', data, 'hex')
    : (data) => createHash('sha256').update(data).digest('hex');
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();

/** RFC 3986 escaping as SigV4 wants it: everything but unreserved characters, as %XX in upper case. */
const uriEscape = (text: string) =>
  encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

const decoded = (text: string) => {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new SigV4Refusal('InvalidSignatureException', 'the request target is not valid percent-encoding');
  }
};

/**
 * The request's header lines by lower-case name, repeated ones joined with commas, values trimmed and
 * inner runs of spaces folded (as SigV4 canonicalises them; most values have none, so no regex runs).
 */
function headersOf(rawHeaders: readonly string[]): Map<string, string> {
  const headers = new Map<string, string>();
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    let value = rawHeaders[i + 1]!.trim();
    if (value.includes('  ') || value.includes('\t')) value = value.replace(/\s+/g, ' ');
    const earlier = headers.get(name);
    headers.set(name, earlier === undefined ? value : `${earlier},${value}`);
  }
  return headers;
}

function canonicalRequest(request: ArrivedRequest, headers: Map<string, string>, signed: string[]): string {
  const query = request.target.indexOf('?');
  const path = query < 0 ? request.target : request.target.slice(0, query);
  const search = query < 0 ? '' : request.target.slice(query + 1);
  // A path of unreserved characters (the door's own, /aws/kms) is its own canonical form.
  const canonicalPath =
    path === ''
      ? '/'
      : PLAIN_PATH.test(path)
        ? path
        : path
            .split('/')
            .map((segment) => uriEscape(decoded(segment)))
            .join('/');
  const canonicalQuery = search === '' ? '' : canonicalQueryOf(search);
  let canonicalHeaders = '';
  for (const name of signed) canonicalHeaders += `${name}:${headers.get(name)}\n`;
  return `${request.method.toUpperCase()}\n${canonicalPath}\n${canonicalQuery}\n${canonicalHeaders}\n${signed.join(';')}\n${sha256Hex(request.body)}`;
}

/** The query string's pairs, each name and value escaped, sorted by name and then value. */
function canonicalQueryOf(search: string): string {
  return search
    .split('&')
    .filter((pair) => pair !== '')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const [name, value] = eq < 0 ? [pair, ''] : [pair.slice(0, eq), pair.slice(eq + 1)];
      return [uriEscape(decoded(name)), uriEscape(decoded(value))] as const;
    })
    .sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : x > y ? 1 : 0) : a < b ? -1 : 1))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
}

/**
 * Signing keys derived for a secret and a day's scope: four HMACs that every request of a client repeats
 * until the date changes, kept (bounded) so each request pays one HMAC of its own.
 */
const signingKeys = new Map<string, Buffer>();
const MAX_SIGNING_KEYS = 1000;

function signingKey(secret: string, date: string, region: string, service: string): Buffer {
  const id = `${date}/${region}/${service}/${secret}`;
  let key = signingKeys.get(id);
  if (key) return key;
  key = hmac(`AWS4${secret}`, date);
  for (const part of [region, service, 'aws4_request']) key = hmac(key, part);
  if (signingKeys.size >= MAX_SIGNING_KEYS) signingKeys.clear();
  signingKeys.set(id, key);
  return key;
}

/**
 * Verifies the request's SigV4 signature (service `service`, any region) and answers who signed it, or
 * throws the SigV4Refusal AWS would answer. `secretOf` gives an access key's secret (undefined: unknown
 * key). The signing date must be within `maxSkewMs` of `now`, either way.
 */
export async function verifySigV4(
  request: ArrivedRequest,
  secretOf: (accessKeyId: string) => Promise<string | undefined>,
  options: { service: string; now: Date; maxSkewMs: number },
): Promise<SignedBy> {
  const headers = headersOf(request.rawHeaders);
  const authorization = headers.get('authorization');
  if (authorization === undefined)
    throw new SigV4Refusal('MissingAuthenticationTokenException', 'Missing Authentication Token');
  const parsed = AUTHORIZATION.exec(authorization);
  if (!parsed)
    throw new SigV4Refusal(
      'IncompleteSignatureException',
      `Authorization must be ${ALGORITHM} Credential=KEY/DATE/REGION/SERVICE/aws4_request, SignedHeaders=..., Signature=...`,
    );
  const [, accessKeyId, scopeDate, region, service, signedList, signature] = parsed as unknown as string[];
  const signed = signedList!.split(';');
  if (signed.some((name, i) => name === '' || (i > 0 && signed[i - 1]! >= name)))
    throw new SigV4Refusal('IncompleteSignatureException', 'SignedHeaders must be sorted, lower case and unique');
  for (const required of ['host', 'x-amz-date'])
    if (!signed.includes(required))
      throw new SigV4Refusal('IncompleteSignatureException', `SignedHeaders must include ${required}`);
  const missing = signed.find((name) => !headers.has(name));
  if (missing) throw new SigV4Refusal('IncompleteSignatureException', `signed header ${missing} is not in the request`);
  // A session token and the operation travel signed or not at all: an unsigned one could be swapped by
  // anyone on the way (a signed DescribeKey resent as DisableKey).
  for (const name of ['x-amz-security-token', 'x-amz-target'])
    if (headers.has(name) && !signed.includes(name))
      throw new SigV4Refusal('IncompleteSignatureException', `${name} must be a signed header`);
  if (service !== options.service)
    throw new SigV4Refusal(
      'InvalidSignatureException',
      `Credential should be scoped to correct service: '${options.service}'.`,
    );
  const amzDate = headers.get('x-amz-date')!;
  const dated = AMZ_DATE.exec(amzDate);
  if (!dated) throw new SigV4Refusal('IncompleteSignatureException', 'X-Amz-Date must be YYYYMMDDTHHMMSSZ');
  if (dated[1] !== scopeDate)
    throw new SigV4Refusal(
      'InvalidSignatureException',
      'Credential should be scoped to a valid date matching X-Amz-Date',
    );
  const part = (from: number, to: number) => Number(amzDate.slice(from, to));
  const [month, day, hour, minute, second] = [part(4, 6), part(6, 8), part(9, 11), part(11, 13), part(13, 15)];
  const signedAt = Date.UTC(part(0, 4), month - 1, day, hour, minute, second);
  // Date.UTC rolls a 31 November over into December: a date that is not one is refused, as AWS does.
  const real =
    month >= 1 && month <= 12 && hour < 24 && minute < 60 && second < 60 && new Date(signedAt).getUTCDate() === day;
  if (!real) throw new SigV4Refusal('IncompleteSignatureException', 'X-Amz-Date must be YYYYMMDDTHHMMSSZ');
  if (Math.abs(options.now.getTime() - signedAt) > options.maxSkewMs)
    throw new SigV4Refusal(
      'InvalidSignatureException',
      `Signature expired: ${amzDate} is not within ${options.maxSkewMs / 60_000} minutes of the server's time`,
    );
  const secret = await secretOf(accessKeyId!);
  if (secret === undefined)
    throw new SigV4Refusal('UnrecognizedClientException', 'The security token included in the request is invalid.');
  const scope = `${scopeDate}/${region}/${service}/aws4_request`;
  const stringToSign = [ALGORITHM, amzDate, scope, sha256Hex(canonicalRequest(request, headers, signed))].join('\n');
  const key = signingKey(secret, scopeDate!, region!, service!);
  const expected = createHmac('sha256', key).update(stringToSign, 'utf8').digest();
  if (!timingSafeEqual(expected, Buffer.from(signature!, 'hex')))
    throw new SigV4Refusal(
      'InvalidSignatureException',
      'The request signature we calculated does not match the signature you provided.',
    );
  const sessionToken = headers.get('x-amz-security-token');
  return { accessKeyId: accessKeyId!, region: region!, ...(sessionToken !== undefined ? { sessionToken } : {}) };
}
