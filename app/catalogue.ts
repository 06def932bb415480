import type { AnyPlugin } from '../kernel/define-plugin.ts';
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
import mcp from '../plugins/mcp/index.ts';
import kmip from '../plugins/kmip/index.ts';
import policyDev from '../plugins/policy/dev/index.ts';
import policyRoleBased from '../plugins/policy/role-based/index.ts';
import revocationMemory from '../plugins/revocation/memory/index.ts';
import revocationNone from '../plugins/revocation/none/index.ts';
import revocationRedis from '../plugins/revocation/redis/index.ts';
import riskScoring from '../plugins/risk/scoring/index.ts';
import rootOfTrustCloudKms from '../plugins/root-of-trust/cloud-kms/index.ts';
import rootOfTrustLocal from '../plugins/root-of-trust/local/index.ts';
import rootOfTrustPkcs11 from '../plugins/root-of-trust/pkcs11/index.ts';
import tokens from '../plugins/tokens/index.ts';

/** A port whose implementation the configuration picks by kind (OpenBao's static kind -> factory map). */
export interface Selectable {
  configKey: string;
  env: string;
  plugins: AnyPlugin[];
}

export const SELECTABLE: Selectable[] = [
  {
    configKey: 'journal.kind',
    env: 'SVC_JOURNAL_KIND',
    plugins: [journalMemory, journalSqlite, journalPostgres, journalMysql],
  },
  {
    configKey: 'crypto.kind',
    env: 'SVC_CRYPTO_KIND',
    plugins: [rootOfTrustLocal, rootOfTrustCloudKms, rootOfTrustPkcs11],
  },
  { configKey: 'auth.kind', env: 'SVC_AUTH_KIND', plugins: [authDev, authHmac, authOidc] },
  { configKey: 'policy.kind', env: 'SVC_POLICY_KIND', plugins: [policyDev, policyRoleBased] },
  {
    configKey: 'revocation.kind',
    env: 'SVC_REVOCATION_KIND',
    plugins: [revocationNone, revocationMemory, revocationRedis],
  },
  {
    configKey: 'audit.kind',
    env: 'SVC_AUDIT_KIND',
    plugins: [auditSinkStdout, auditSinkSqlite, auditSinkPostgres, auditSinkMysql],
  },
];

/** Feature plugins wired in every deployment. */
export const ALWAYS: AnyPlugin[] = [keyService, keys, auditApi, advisor, tokens, autoResponder];

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

/** Wired unless risk.enabled is false. */
export const RISK = riskScoring;

/** The MCP door at /mcp, wired unless mcp.enabled is false. */
export const MCP = mcp;

/** The KMIP door on its own port, wired when kmip.enabled is true. */
export const KMIP = kmip;

export const BUILTIN: AnyPlugin[] = [
  ...SELECTABLE.flatMap((s) => s.plugins),
  ...ALWAYS,
  ...DETECTORS,
  ...SECONDARY_SINKS,
  RISK,
  MCP,
  KMIP,
];

/** Ports a plugin from `plugins:` may provide. */
export const EXTENSION_PORTS = new Set(['auditFanout', 'operations', 'door', 'risk', 'detector']);
