import type { Operation } from './operation.ts';

export type PrincipalKind = 'Human' | 'Service' | 'Agent';

/** Who is asking. There is no anonymous principal: an unauthenticated request never reaches a handler. */
export type Principal =
  | { kind: 'Human'; subject: string; groups: string[]; credential?: Credential }
  | { kind: 'Service'; subject: string; tenant?: string; groups: string[]; credential?: Credential }
  | {
      kind: 'Agent';
      subject: string; // the agentId
      parent: string;
      /** The parent's groups when the token was issued; role-based policy bounds the agent by them. */
      parentGroups: string[];
      purpose: string;
      allowedOperations: Operation[];
      /**
       * The key patterns it was issued with (`id:`, `name:`, `owner:self`, `alias:`): it may touch only
       * matching keys. Undefined: any key its scopes and its parent allow.
       */
      keys?: string[];
      credential?: Credential;
    };

/** What the token said about itself; used by revocation and the risk step, never logged. */
export interface Credential {
  jti: string;
  issuedAt?: number; // epoch seconds
  expiresAt?: number; // epoch seconds
  /** An agent's: the jti of its parent's token, checked against the revocation list at every use. */
  parentJti?: string;
}

/** Who owns what a principal creates: itself, or for an agent the Human that issued it. */
export const ownerOf = (p: Principal): string => (p.kind === 'Agent' ? p.parent : p.subject);

/** The principal the auto-responder and other internal actors write audit rows as. */
export const SYSTEM_PRINCIPAL: Principal = { kind: 'Service', subject: 'svc-system', groups: [] };
