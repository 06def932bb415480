import {
  type AccessKeyCredentials,
  authenticate,
  type Authenticator,
  type Principal,
  SvcError,
} from '../../../kernel/index.ts';
import { type ArrivedRequest, SigV4Refusal, verifySigV4 } from './sigv4.ts';

/** How long either way a request's X-Amz-Date may be from the server's clock, as AWS allows. */
const MAX_SKEW_MS = 5 * 60_000;
const CREDENTIAL = /^AWS4-HMAC-SHA256 Credential=([A-Z0-9]{16,128})\//;

/** A signed caller: who it acts as, with which access key, for which region. */
export interface AwsCaller {
  principal: Principal;
  accessKeyId: string;
  region: string;
}

/** A refusal of a request signed with a known access key: the door audits it as that key's principal. */
export class KnownKeyRefusal extends Error {
  constructor(
    readonly refusal: SigV4Refusal,
    readonly principal: Principal,
    readonly accessKeyId: string,
  ) {
    super(refusal.message);
  }
}

/**
 * Who signed a request, in two steps so that a caller without a live access key makes the service read
 * no body: `identify` looks the access key up from the Authorization header alone; `verify` then checks
 * the signature over the body. An X-Amz-Security-Token carries an agent token (the SDKs send it as a
 * session token): the call then acts as that agent, bounded as on every door.
 */
export class AwsCallers {
  constructor(
    private readonly credentials: AccessKeyCredentials,
    private readonly authenticator: Authenticator,
  ) {}

  async identify(authorization: string | undefined) {
    if (authorization === undefined)
      throw new SigV4Refusal('MissingAuthenticationTokenException', 'Missing Authentication Token');
    const accessKeyId = CREDENTIAL.exec(authorization)?.[1];
    if (accessKeyId === undefined)
      throw new SigV4Refusal(
        'IncompleteSignatureException',
        'Authorization must be AWS4-HMAC-SHA256 Credential=KEY/DATE/REGION/kms/aws4_request, SignedHeaders=..., Signature=...',
      );
    const resolved = await this.credentials.resolve(accessKeyId);
    if (!resolved)
      throw new SigV4Refusal('UnrecognizedClientException', 'The security token included in the request is invalid.');
    return { accessKeyId, ...resolved };
  }

  async verify(
    request: ArrivedRequest,
    identified: { accessKeyId: string; principal: Principal; secret: string },
    now: Date,
  ): Promise<AwsCaller> {
    let signed: Awaited<ReturnType<typeof verifySigV4>>;
    try {
      signed = await verifySigV4(
        request,
        async (id) => (id === identified.accessKeyId ? identified.secret : undefined),
        { service: 'kms', now, maxSkewMs: MAX_SKEW_MS },
      );
    } catch (err) {
      if (err instanceof SigV4Refusal) throw new KnownKeyRefusal(err, identified.principal, identified.accessKeyId);
      throw err;
    }
    const principal = signed.sessionToken === undefined ? identified.principal : await this.agent(signed.sessionToken);
    return { principal, accessKeyId: identified.accessKeyId, region: signed.region };
  }

  /** The agent a session token names, with the authenticator's rules; anything but an agent token is refused. */
  private async agent(token: string): Promise<Principal> {
    let principal: Principal;
    try {
      principal = await authenticate(this.authenticator, {
        header: (name) => (name.toLowerCase() === 'authorization' ? `Bearer ${token}` : undefined),
      });
    } catch (err) {
      throw new SigV4Refusal(
        'UnrecognizedClientException',
        `The security token included in the request is invalid: ${err instanceof SvcError ? err.message : 'refused'}`,
      );
    }
    if (principal.kind !== 'Agent')
      throw new SigV4Refusal(
        'UnrecognizedClientException',
        'X-Amz-Security-Token must be an agent token (svc agents issue); other credentials sign with an access key',
      );
    return principal;
  }
}
