import type { AnyPlugin } from '../kernel/define-plugin.ts';
import accessKeyCredentials from '../plugins/access-keys/credentials.ts';
import accessKeys from '../plugins/access-keys/index.ts';
import advisor from '../plugins/advisor/index.ts';
import auditApi from '../plugins/audit-api/index.ts';
import auditLogStream from '../plugins/audit-fanout/log-stream/index.ts';
import auditMessageStream from '../plugins/audit-fanout/message-stream/index.ts';
import auditWebhook from '../plugins/audit-fanout/webhook/index.ts';
import autoResponder from '../plugins/auto-responder/index.ts';
import {
  opHistogramBaseline,
  scopeBaseline,
  sourceIpBaseline,
  timeOfDayBaseline,
} from '../plugins/detectors/baseline/plugins.ts';
import detectorHoneyKey from '../plugins/detectors/honey-key/index.ts';
import detectorRateSpike from '../plugins/detectors/rate-spike/index.ts';
import auditSinkMysql from '../plugins/audit-sink/knex/mysql.ts';
import auditSinkPostgres from '../plugins/audit-sink/knex/postgres.ts';
import auditSinkSqlite from '../plugins/audit-sink/knex/sqlite.ts';
import auditSinkStdout from '../plugins/audit-sink/stdout/index.ts';
import authDev from '../plugins/auth/dev/index.ts';
import authHmac from '../plugins/auth/hmac/index.ts';
import authOidc from '../plugins/auth/oidc/index.ts';
import journalMysql from '../plugins/journal/knex/mysql.ts';
import journalPostgres from '../plugins/journal/knex/postgres.ts';
import journalSqlite from '../plugins/journal/knex/sqlite.ts';
import journalMemory from '../plugins/journal/memory/index.ts';
import keys from '../plugins/keys/index.ts';
import keyService from '../plugins/keys/service.ts';
import mcp from '../plugins/doors/mcp/index.ts';
import kmip from '../plugins/doors/kmip/index.ts';
import awsKms from '../plugins/doors/aws-kms/index.ts';
import jwks from '../plugins/doors/jwks/index.ts';
import vaultTransit from '../plugins/doors/vault-transit/index.ts';
import kubernetesKms from '../plugins/doors/kubernetes-kms/index.ts';
import policyApi from '../plugins/policy/api/index.ts';
import policyDev from '../plugins/policy/dev/index.ts';
import policyRoleBased from '../plugins/policy/role-based/index.ts';
import revocationMemory from '../plugins/revocation/memory/index.ts';
import revocationNone from '../plugins/revocation/none/index.ts';
import revocationRedis from '../plugins/revocation/redis/index.ts';
import riskScoring from '../plugins/risk/scoring/index.ts';
import rootOfTrustCloudKms from '../plugins/root-of-trust/cloud-kms/index.ts';
import rootOfTrustCloudKmsPrevious from '../plugins/root-of-trust/cloud-kms/previous.ts';
import rootOfTrustLocal from '../plugins/root-of-trust/local/index.ts';
import rootOfTrustLocalPrevious from '../plugins/root-of-trust/local/previous.ts';
import rootOfTrustPkcs11 from '../plugins/root-of-trust/pkcs11/index.ts';
import rootOfTrustPkcs11Previous from '../plugins/root-of-trust/pkcs11/previous.ts';
import tokens from '../plugins/tokens/index.ts';

/**
 * The plugins that fill a port chosen by kind (journal.kind, crypto.kind, auth.kind, policy.kind,
 * revocation.kind, audit.kind): each setting allows the kinds listed here for its port, and the kernel
 * wires the one it names, and lists them in this order in messages and docs. A new kind is a folder
 * under plugins/ and one line here.
 */
export const BY_KIND: AnyPlugin[] = [
  journalMemory,
  journalPostgres,
  journalMysql,
  journalSqlite,
  rootOfTrustLocal,
  rootOfTrustCloudKms,
  rootOfTrustPkcs11,
  authDev,
  authHmac,
  authOidc,
  policyDev,
  policyRoleBased,
  revocationNone,
  revocationMemory,
  revocationRedis,
  auditSinkStdout,
  auditSinkPostgres,
  auditSinkMysql,
  auditSinkSqlite,
];

/**
 * Each kind's previous KEKs: wired when its settings list some and it is not the chosen kind (rewrap moves keys off
 * it).
 */
export const PREVIOUS_KEKS: AnyPlugin[] = [
  rootOfTrustLocalPrevious,
  rootOfTrustCloudKmsPrevious,
  rootOfTrustPkcs11Previous,
];

/** Feature plugins wired in every deployment. */
export const ALWAYS: AnyPlugin[] = [
  keyService,
  keys,
  auditApi,
  advisor,
  tokens,
  autoResponder,
  policyApi,
  accessKeys,
  accessKeyCredentials,
];

/** Anomaly detectors, chosen by detectors.enabled (their kind is the detector name). */
export const DETECTORS: AnyPlugin[] = [
  scopeBaseline,
  detectorRateSpike,
  opHistogramBaseline,
  timeOfDayBaseline,
  sourceIpBaseline,
  detectorHoneyKey,
];

/** Secondary audit sinks: each wired once per sink its kind has in the configuration (possibly none). */
export const SECONDARY_SINKS: AnyPlugin[] = [auditWebhook, auditLogStream, auditMessageStream];

/** Plugins wired once per instance their settings give (possibly none). */
export const BY_INSTANCES: AnyPlugin[] = [...SECONDARY_SINKS, ...PREVIOUS_KEKS];

/** Wired unless risk.enabled is false. */
export const RISK = riskScoring;

/** The MCP door at /mcp, wired unless mcp.enabled is false. */
export const MCP = mcp;

/** The KMIP door on its own port, wired when kmip.enabled is true. */
export const KMIP = kmip;

/** The AWS KMS door at /aws/kms, wired unless aws.enabled is false. */
export const AWS = awsKms;

/** The public key set at /.well-known/jwks.json, wired unless jwks.enabled is false. */
export const JWKS = jwks;

/** Vault's transit API at /v1/<vault.mount>/, wired unless vault.enabled is false. */
export const VAULT = vaultTransit;

/** The Kubernetes KMS v2 plugin on its Unix socket, wired when k8s.socket is not empty. */
export const K8S_KMS = kubernetesKms;

export const BUILTIN: AnyPlugin[] = [
  ...BY_KIND,
  ...ALWAYS,
  ...DETECTORS,
  ...BY_INSTANCES,
  RISK,
  MCP,
  KMIP,
  AWS,
  JWKS,
  VAULT,
  K8S_KMS,
];

/** Ports a plugin from `plugins:` may provide. */
export const EXTENSION_PORTS = new Set(['auditFanout', 'operations', 'door', 'risk', 'detector']);
