import type { Static } from '@sinclair/typebox';
import type * as AK from '../../schemas/access-keys.ts';
import type * as A from '../../schemas/advisor.ts';
import type * as Al from '../../schemas/aliases.ts';
import type * as Au from '../../schemas/audit.ts';
import type * as K from '../../schemas/keys.ts';
import type * as KA from '../../schemas/key-attributes.ts';
import type * as KT from '../../schemas/key-transfer.ts';
import type * as L from '../../schemas/locate.ts';
import type * as P from '../../schemas/policy.ts';
import type * as T from '../../schemas/tokens.ts';

// Every shape here is derived from the service's own TypeBox schemas (schemas/), the same ones that
// validate requests and generate the OpenAPI document; bytes are Uint8Array instead of base64 text.

export type KeySpecRequest = Static<typeof K.KeySpecRequest>;
export type ManagedKey = Static<typeof K.ManagedKey>;
export type ActivateResult = Static<typeof K.ActivateResponse>;
export type RotateRequest = Static<typeof K.RotateBody>;
export type RotateResult = Static<typeof K.RotateResponse>;
export type RevokeResult = Static<typeof K.RevokeResponse>;
export type CompromiseResult = Static<typeof K.CompromiseResponse>;
/** 200 destroyed (destroyedAt, erasure) or 202 scheduled (destroyAt): one shape with the fields of either. */
export type DestroyResult = Static<typeof K.DestroyResult>;
export type PublicKeyResult = Static<typeof K.PublicKeyResponse>;
export type SignatureAlgorithm = NonNullable<Static<typeof K.SignBody>['algorithm']>;
export type KeyAlgorithm = Static<typeof K.KeySpecRequest>['algorithm'];
export type Curve = NonNullable<Static<typeof K.KeySpecRequest>['curve']>;
export type ParameterSet = NonNullable<Static<typeof K.KeySpecRequest>['parameterSet']>;
export type EncryptionContext = NonNullable<Static<typeof K.EncryptBody>['context']>;
export type VerifyResult = Static<typeof K.VerifyResponse>;
export type CancelDestroyResult = Static<typeof K.CancelDestroyResponse>;
export type TrimResult = Static<typeof K.TrimResponse>;

export type SignResult = Omit<Static<typeof K.SignResponse>, 'signatureBase64'> & { signature: Uint8Array };
export type EncryptResult = Omit<Static<typeof K.EncryptResponse>, 'ciphertextBase64'> & { ciphertext: Uint8Array };
export type DecryptResult = Omit<Static<typeof K.DecryptResponse>, 'plaintextBase64'> & { plaintext: Uint8Array };
export type WrapResult = Omit<Static<typeof K.WrapResponse>, 'wrappedDekBase64'> & { wrappedDek: Uint8Array };
export type UnwrapResult = Omit<Static<typeof K.UnwrapResponse>, 'dekBase64'> & { dek: Uint8Array };

export type ExportKeyResult = Omit<Static<typeof KT.ExportKeyResponse>, 'materialBase64'> & { material: Uint8Array };
export type ImportParametersRequest = Static<typeof KT.ImportParametersBody>;
export type ImportParameters = Static<typeof KT.ImportParametersResponse>;

export type IssueAgentRequest = Static<typeof T.IssueAgentBody>;
export type IssuedAgent = Static<typeof T.IssueAgentResponse>;
export type RevokeTokenRequest = Static<typeof T.RevokeTokenBody>;
export type RevokeTokenResult = Static<typeof T.RevokeTokenResponse>;
export type Agent = Static<typeof T.AgentView>;
export type AgentList = Static<typeof T.AgentList>;
export type RevokeAgentResult = Static<typeof T.RevokeAgentResponse>;

export type AuditRecord = Static<typeof Au.AuditRecordSchema>;
export type AuditPage = Static<typeof Au.AuditPageSchema>;
export type AuditVerification = Static<typeof Au.AuditVerificationSchema>;
export type AuditVerifyQuery = Static<typeof Au.AuditVerifyParams>;
/** The audit filters; numbers may be given as numbers (the wire carries them as query text). */
export type AuditQuery = {
  [P in keyof Static<typeof Au.AuditQueryParams>]?: P extends 'limit' | 'offset' ? number : string;
};

export type AdvisorScanQuery = { [P in keyof Static<typeof A.AdvisorScanQuery>]?: number };
export type AdvisorExplainQuery = { [P in keyof Static<typeof A.AdvisorExplainQuery>]?: number };
export type AdvisorScanReport = Static<typeof A.AdvisorScanReport> & Record<string, unknown>;
export type AdvisorExplanation = Static<typeof A.AdvisorExplanation> & Record<string, unknown>;

export type KeyPage = Static<typeof L.KeyPage>;
/** The filters of listKeys (GET /v1/keys); limit is keys per page, cursor a page's nextCursor. */
export type KeyQuery = Static<typeof L.LocateKeysQuery>;

// Aliases, tags, the reversible disable and the role-based policy (key-model-calls.ts).

export type Alias = Static<typeof Al.Alias>;
export type AliasList = Static<typeof Al.AliasList>;
/** For a move, `previousKeyId` names the key the alias named before. */
export type PutAliasResult = Static<typeof Al.PutAliasResponse>;
export type DeleteAliasResult = Static<typeof Al.DeleteAliasResponse>;
/** The filters of listAliases; `after` is the nextAfter of the previous page. */
export type AliasQuery = Static<typeof Al.ListAliasesQuery>;
/** Tag key -> value. */
export type Tags = Static<typeof KA.TagBody>['tags'];
export type TagsResult = Static<typeof KA.TagsResponse>;
export type EnabledResult = Static<typeof KA.EnabledResponse>;
/** What PUT /v1/policy replaces: both maps, whole. */
export type PolicyDocument = Omit<Static<typeof P.PutPolicyBody>, 'ifMatch'>;
/** The stored version as GET and PUT /v1/policy answer it; `etag` is what putPolicy takes. */
export type Policy = Static<typeof P.PolicyAnswer>;

// Access keys (access-key-calls.ts).

/** The answer to createAccessKey: `secretAccessKey` is shown this once. */
export type CreatedAccessKey = Static<typeof AK.CreateAccessKeyResponse>;
export type AccessKey = Static<typeof AK.AccessKeyView>;
export type AccessKeyList = Static<typeof AK.AccessKeyList>;
/** The filters of listAccessKeys; `after` is the nextAfter of the previous page. */
export type AccessKeyQuery = Static<typeof AK.ListAccessKeysQuery>;
export type DeletedAccessKey = Static<typeof AK.DeleteAccessKeyResponse>;
