import type { JWTPayload } from 'jose';
import { isOperation, type Operation } from './operation.ts';
import type { Principal } from './principal.ts';

/** The claims svc-kms reads from and writes into tokens. */
export interface SvcClaims extends JWTPayload {
  svc_kind?: 'human' | 'service' | 'agent';
  svc_groups?: string[];
  groups?: string[];
  svc_tenant?: string;
  svc_parent?: string;
  /** The jti of the token the agent's parent issued it with: revoking that token revokes the agent. */
  svc_parent_jti?: string;
  svc_purpose?: string;
  svc_ops?: string[];
}

/** The iss of tokens the service signs itself (agent tokens); oidc mode accepts these with the HS256 secret. */
export const SVC_TOKEN_ISSUER = 'svc-kms';

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/**
 * Turns verified claims into a Principal; throws a plain Error (the authenticator answers 401) when the
 * claims cannot describe one. A token without jti has an empty jti.
 */
export function principalFromClaims(claims: SvcClaims): Principal {
  const subject = typeof claims.sub === 'string' ? claims.sub : '';
  if (!subject) throw new Error('token has no sub claim');
  const credential = {
    jti: typeof claims.jti === 'string' ? claims.jti : '',
    issuedAt: claims.iat,
    expiresAt: claims.exp,
  };
  const groups = strings(claims.svc_groups ?? claims.groups);
  switch (claims.svc_kind ?? 'human') {
    case 'human':
      return { kind: 'Human', subject, groups, credential };
    case 'service':
      return {
        kind: 'Service',
        subject,
        groups,
        credential,
        ...(claims.svc_tenant ? { tenant: claims.svc_tenant } : {}),
      };
    case 'agent': {
      if (typeof claims.svc_parent !== 'string' || !claims.svc_parent)
        throw new Error('agent token has no svc_parent claim');
      const ops = strings(claims.svc_ops);
      const unknown = ops.filter((op) => !isOperation(op));
      if (unknown.length) throw new Error(`agent token names unknown operations: ${unknown.join(', ')}`);
      const agentCredential =
        typeof claims.svc_parent_jti === 'string' && claims.svc_parent_jti
          ? { ...credential, parentJti: claims.svc_parent_jti }
          : credential;
      return {
        kind: 'Agent',
        subject,
        parent: claims.svc_parent,
        parentGroups: groups,
        purpose: claims.svc_purpose ?? '',
        allowedOperations: ops as Operation[],
        credential: agentCredential,
      };
    }
    default:
      throw new Error(`unknown svc_kind "${String(claims.svc_kind)}"`);
  }
}
