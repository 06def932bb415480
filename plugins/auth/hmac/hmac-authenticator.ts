import { jwtVerify } from 'jose';
import { bearerToken, CLOCK_SKEW_SECONDS, principalFromVerifiedToken, tokenRejection } from '../../../kernel/auth/bearer.ts';
import type { Principal } from '../../../kernel/model/index.ts';
import type { SvcClaims } from '../../../kernel/model/token-claims.ts';
import type { Authenticator, CredentialSource } from '../../../kernel/ports/authenticator.ts';
import type { AgentRegistry } from '../../../kernel/ports/agent-registry.ts';
import type { RevocationList } from '../../../kernel/ports/revocation.ts';

/** HS256 bearer tokens verified with the shared secret (jose compares the MAC in constant time). */
export class HmacAuthenticator implements Authenticator {
  private readonly key: Uint8Array;

  constructor(secret: string, private readonly revocation: RevocationList, private readonly agents: AgentRegistry) {
    this.key = new TextEncoder().encode(secret);
  }

  async authenticate(request: CredentialSource): Promise<Principal> {
    const token = bearerToken(request);
    let claims: SvcClaims;
    let alg: string | undefined;
    try {
      ({ payload: claims, protectedHeader: { alg } } = await jwtVerify<SvcClaims>(token, this.key, { algorithms: ['HS256'], clockTolerance: CLOCK_SKEW_SECONDS, requiredClaims: ['sub', 'exp'] }));
    } catch (err) {
      throw tokenRejection(err);
    }
    return principalFromVerifiedToken(claims, alg, this.revocation, this.agents);
  }
}
