import { jwtVerify } from 'jose';
import {
  type AgentRegistry,
  type Authenticator,
  bearerToken,
  CLOCK_SKEW_SECONDS,
  type CredentialSource,
  type Principal,
  principalFromVerifiedToken,
  type RevocationList,
  type SvcClaims,
  tokenRejection,
} from '../../../kernel/index.ts';

/** HS256 bearer tokens verified with the shared secret (jose compares the MAC in constant time). */
export class HmacAuthenticator implements Authenticator {
  private readonly key: Uint8Array;

  constructor(
    secret: string,
    private readonly revocation: RevocationList,
    private readonly agents: AgentRegistry,
  ) {
    this.key = new TextEncoder().encode(secret);
  }

  async authenticate(request: CredentialSource): Promise<Principal> {
    const token = bearerToken(request);
    let claims: SvcClaims;
    let alg: string | undefined;
    try {
      ({
        payload: claims,
        protectedHeader: { alg },
      } = await jwtVerify<SvcClaims>(token, this.key, {
        algorithms: ['HS256'],
        clockTolerance: CLOCK_SKEW_SECONDS,
        requiredClaims: ['sub', 'exp'],
      }));
    } catch (err) {
      throw tokenRejection(err);
    }
    return principalFromVerifiedToken(claims, alg, this.revocation, this.agents);
  }
}
