import type { Static } from '@sinclair/typebox';
import type * as AK from '../../schemas/access-keys.ts';
import type * as A from '../../schemas/advisor.ts';
import type * as Au from '../../schemas/audit.ts';
import type * as K from '../../schemas/keys.ts';
import type * as L from '../../schemas/locate.ts';
import type * as P from '../../schemas/policy.ts';
import type * as T from '../../schemas/tokens.ts';

// The answers' shapes, from the service's own schemas: type-only imports, so the bundle carries no
// schema code, and a changed answer fails the type check here.
export type ManagedKey = Static<typeof K.ManagedKey>;
export type KeyPage = Static<typeof L.KeyPage>;
export type PublicKey = Static<typeof K.PublicKeyResponse>;
export type EncryptAnswer = Static<typeof K.EncryptResponse>;
export type DecryptAnswer = Static<typeof K.DecryptResponse>;
export type SignAnswer = Static<typeof K.SignResponse>;
export type VerifyAnswer = Static<typeof K.VerifyResponse>;
export type DestroyAnswer = Static<typeof K.DestroyResult>;
export type Agent = Static<typeof T.AgentView>;
export type AgentList = Static<typeof T.AgentList>;
export type IssuedAgent = Static<typeof T.IssueAgentResponse>;
export type AuditRecord = Static<typeof Au.AuditRecordSchema>;
export type AuditPage = Static<typeof Au.AuditPageSchema>;
export type AuditVerification = Static<typeof Au.AuditVerificationSchema>;
export type AdvisorScanReport = Static<typeof A.AdvisorScanReport>;
export type AdvisorExplanation = Static<typeof A.AdvisorExplanation>;
export type PolicyAnswer = Static<typeof P.PolicyAnswer>;
export type AccessKey = Static<typeof AK.AccessKeyView>;
export type AccessKeyList = Static<typeof AK.AccessKeyList>;
export type CreatedAccessKey = Static<typeof AK.CreateAccessKeyResponse>;

// Pure constant modules: the bundle takes these arrays and nothing else from the kernel.
export { OPERATIONS } from '../../kernel/model/operation.ts';
export { KEY_STATES } from '../../kernel/model/managed-key.ts';
export {
  TRANSITION_SOURCES,
  USABLE_STATES,
  WHILE_SCHEDULED,
  type KeyTransition,
} from '../../kernel/model/key-transitions.ts';
export { EC_CURVES, ED_CURVES, KEY_ALGORITHMS } from '../../kernel/model/key-spec.ts';
