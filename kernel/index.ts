/**
 * The kernel's public API: what a plugin (ours or a third party's) may import. Everything else under
 * kernel/ is the kernel's own business and may change without notice between 0.x releases.
 */
export {
  definePlugin,
  KERNEL_API_VERSION,
  type PluginManifest,
  type PluginContext,
  type PreflightEnv,
} from './define-plugin.ts';
export { defineSettings, type SettingsOf } from './settings/settings.ts';
export type { Deployment } from './settings/deployment.ts';
export { SvcError, isSvcError, asSvcError, INTERNAL_ERROR_MESSAGE, ERROR_CATALOGUE, type ErrorCode } from './errors.ts';
export * from './model/index.ts';
export {
  defineOperation,
  operationsPort,
  type OperationDef,
  type OperationCall,
  type OperationContribution,
  type AuditFacts,
  type Handled,
  type HttpBinding,
  type AnyOperation,
  type OperationAttributes,
} from './operations/operation.ts';
export { DOOR_CONTEXT_MAX, type Caller } from './operations/pipeline.ts';
export { parseTimestamp, timestampField } from './operations/timestamp-field.ts';
export {
  promptContext,
  promptField,
  PROMPT_FIELD_MAX_CHARS,
  MODEL_HEADER,
  PROMPT_ID_HEADER,
  MODEL_CONTEXT_KEY,
  PROMPT_ID_CONTEXT_KEY,
} from './operations/prompt-context.ts';
export { CALLER_TEXT_RULE, isCallerText } from './model/caller-text.ts';
export { requireCallerText, reservedSubjectProblem, subjectSkeleton } from './text/caller-text.ts';
export {
  keyResource,
  namedResource,
  boundText,
  boundRecord,
  isKeyResource,
  isUuid,
  AUDIT_BOUNDS,
} from './audit/bounds.ts';
export { chainHash, eventJson, GENESIS_HASH, type AuditEvent } from './audit/canonical-event.ts';
export { AUDIT_EVENT_SCHEMA_VERSION, AuditEventSchema } from './audit/audit-event-schema.ts';
export { GroupCommit } from './audit/group-commit.ts';
export { auditIdentity } from './audit/event-id.ts';
export { DEFAULT_DELIVERY } from './audit/secondary-delivery.ts';
export { PermanentDeliveryError } from './audit/fanout.ts';
export {
  MAX_AGENT_TTL_SECONDS,
  MAX_JTI_LENGTH,
  SVC_TOKEN_AUDIENCE,
  UNKNOWN_EXPIRY_SECONDS,
} from './auth/agent-claims.ts';
export {
  bearerToken,
  CLOCK_SKEW_SECONDS,
  isUsableHmacSecret,
  MIN_HMAC_SECRET_BYTES,
  principalFromVerifiedToken,
  tokenRejection,
} from './auth/bearer.ts';
export { openAesGcm, sealAesGcm } from './crypto/aes-gcm.ts';
export { ciphertextKeyId, envelopeFor, nameCiphertext } from './crypto/key-naming-ciphertext.ts';
export { narrowToOwner, warnIfFolderOpen } from './files/owner-only.ts';
export { packageRoot, packageVersion } from './files/package-root.ts';
export { SVC_TOKEN_ISSUER, type SvcClaims } from './model/token-claims.ts';
export { outboundUrlProblem } from './net/outbound-url.ts';
export { redactUrl } from './net/redact-url.ts';
export { ListenerConnections } from './net/listener-connections.ts';
export { metricsPort, type KmsMetrics } from './observability/metrics.ts';
export { oneAtATime, OneAtATime } from './operations/one-at-a-time.ts';
export { ActorTable } from './detection/actor-table.ts';
export { ActorStateBudget, actorStatePort, DEFAULT_STATE_BYTES, type Evictable } from './detection/state-budget.ts';
export { UNTRACED, type TraceScope } from './observability/trace-scope.ts';
export type { PreflightNode } from './preflight.ts';
export { devGradeFinding } from './preflight.ts';
export { createPortRef, type PortRef } from './ports/port-ref.ts';
export {
  auditFanoutPort,
  auditSinkPort,
  type AuditFanoutSink,
  type DeliverySettings,
  type AuditSink,
  type AuditPage,
  type AuditChainLink,
  type AuditVerification,
  type AuditVerifyQuery,
} from './ports/audit-sink.ts';
export { auditPipelinePort, type AuditPipelinePort } from './ports/audit-pipeline.ts';
export { authenticatorPort, type Authenticator, type CredentialSource } from './ports/authenticator.ts';
export { clockPort, systemClock, type Clock } from './ports/clock.ts';
export { detectorPort, SEVERITIES, type Detector, type Finding, type Severity } from './ports/detector.ts';
export {
  journalPort,
  JournalConflict,
  NameTaken,
  type KeyJournal,
  type ErasureAttempt,
  type JournalPoolStats,
} from './ports/journal.ts';
export type { MaterialRekey } from './ports/journal.ts';
export type { StoredImportToken } from './ports/import-token.ts';
export type { AgentRegistry } from './ports/agent-registry.ts';
export { agentKeyPatternProblem, MAX_AGENT_KEY_PATTERNS } from './auth/agent-keys.ts';
export type { NewPolicyVersion, PolicyDocument, PolicyStore, PolicyVersion } from './ports/policy-store.ts';
export { ALIAS_PATTERN, AliasTaken, isAlias, type KeyAlias, type KeyAliases } from './ports/key-aliases.ts';
export {
  ACCESS_KEY_ID_PATTERN,
  AccessKeyIdTaken,
  AccessKeyLimitReached,
  accessKeyCredentialsPort,
  isAccessKeyId,
  type AccessKeyCredentials,
  type AccessKeyRecord,
  type AccessKeyStore,
} from './ports/access-keys.ts';
export {
  indexedKeyOf,
  isAfter,
  matchesLocate,
  nameGlob,
  NO_KEYS,
  stateAfter,
  tagsAfter,
  type IndexedKey,
  type KeyScope,
  type LocatedRows,
  type LocateFilter,
  type LocatePosition,
} from './ports/key-locate.ts';
export type {
  NodeRegistry,
  RegisteredNode,
  RecordedAuditHead,
  AuditAdoption,
  PrunedAuditRow,
} from './ports/node-registry.ts';
export type { Lifecycle } from './ports/lifecycle.ts';
export { loggerPort, type Logger } from './ports/logger.ts';
export { operationRunnerPort, type OperationRunner } from './ports/operation-runner.ts';
export { doorPort, type Door, type DoorHttpRequest, type DoorMount } from './ports/door.ts';
export { authenticate } from './auth/authenticate.ts';
export { policyPort, type Policy, type PolicyDecision, type ResourceFacts } from './ports/policy.ts';
export { revocationPort, type RevocationList } from './ports/revocation.ts';
export { riskPort, type RiskAssessor, type RiskDecision, type RiskFactor, type RiskInput } from './ports/risk.ts';
export {
  previousKeksPort,
  rootOfTrustPort,
  type RootOfTrust,
  type RootOfTrustContext,
  type WrappedKey,
} from './ports/root-of-trust.ts';
export { MAX_JSON_DEPTH, nestedDeeperThan, parseJsonBody } from './http/json-text.ts';
export { readRawBody } from './http/raw-body.ts';
export { TLS12_CIPHERS } from './http/tls.ts';
export { isRequestId } from './http/errors-middleware.ts';
export { closeWorker, siblingModule, startModuleWorker } from './threads/module-worker.ts';
export { PendingReplies } from './threads/pending-replies.ts';
