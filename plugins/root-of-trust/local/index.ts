import path from 'node:path';
import {
  type Deployment,
  definePlugin,
  devGradeFinding,
  KERNEL_API_VERSION,
  metricsPort,
  type PreflightNode,
  type RootOfTrust,
  rootOfTrustPort,
  type SettingsOf,
} from '../../../kernel/index.ts';
import { sqlitePath } from '../../sql-support/connection-url.ts';
import { localKekSettings } from './config.ts';
import { RootOfTrustChain } from '../support/chain.ts';
import { type CloudKmsPrevious, cloudKmsPrevious, commaList } from '../support/cloud-kms-config.ts';
import { CloudKmsRootOfTrust } from '../support/cloud-kms-root-of-trust.ts';
import { LocalRootOfTrust, type KekSource } from '../support/local-root-of-trust.ts';
import { pkcs11PreviousSettings, pkcs11SettingProblems, type Pkcs11Settings } from '../support/pkcs11-config.ts';
import { Pkcs11RootOfTrust } from '../support/pkcs11-root-of-trust.ts';

type Slice = {
  source: KekSource | { kind: 'refused'; journalKind: string };
  previous: string[];
  cloudPrevious: CloudKmsPrevious;
  pkcs11Previous?: Pkcs11Settings;
};

/** Where the KEK comes from: configured, a file beside journal.db, or per process. */
function kekSource({ crypto, rdbEmbedded }: SettingsOf<typeof localKekSettings>, deployment: Deployment): Slice {
  const slice = (source: Slice['source']): Slice => ({
    source,
    previous: commaList(crypto.previousKeks),
    cloudPrevious: cloudKmsPrevious(crypto.cloudKms),
    pkcs11Previous: pkcs11PreviousSettings(crypto.pkcs11),
  });
  if (crypto.localKek) return slice({ kind: 'configured', kekBase64: crypto.localKek });
  const journalKind = deployment.kinds.journal ?? '';
  if (journalKind === 'rdb-embedded')
    return slice({ kind: 'file', file: path.join(path.dirname(sqlitePath(rdbEmbedded.jdbcUrl)), 'kek.key') });
  if (journalKind === 'in-memory') return slice({ kind: 'ephemeral' });
  return slice({ kind: 'refused', journalKind });
}

export default definePlugin({
  id: 'root-of-trust-local',
  apiVersion: KERNEL_API_VERSION,
  provides: rootOfTrustPort,
  kind: 'in-memory',
  description: 'AES-256-GCM under a KEK held in process memory',
  settings: localKekSettings,
  configure: kekSource,
  dependsOn: { metrics: metricsPort },
  preflight: ({ source, previous, cloudPrevious, pkcs11Previous }, env) => {
    const nodes: PreflightNode[] = [
      devGradeFinding(
        'crypto.kind',
        env.exposed,
        `crypto.kind is in-memory: the KEK lives in this process (${source.kind === 'file' ? 'and a file beside journal.db' : source.kind})`,
        'use SVC_CRYPTO_KIND=cloud-kms or SVC_CRYPTO_KIND=pkcs11 so key material is protected by an HSM-backed key',
      ),
    ];
    if (source.kind === 'refused') {
      nodes.push({
        name: 'crypto.localKek',
        status: 'fail',
        message: `journal.kind ${source.journalKind} keeps keys across restarts, but no SVC_CRYPTO_LOCAL_KEK is set: keys would be unreadable after a restart`,
        advice:
          'set SVC_CRYPTO_LOCAL_KEK to base64 of 32 random bytes (openssl rand -base64 32), or use crypto.kind cloud-kms',
      });
    } else if (source.kind === 'configured' && Buffer.from(source.kekBase64, 'base64').length !== 32) {
      nodes.push({
        name: 'crypto.localKek',
        status: 'fail',
        message: 'SVC_CRYPTO_LOCAL_KEK must be base64 of exactly 32 bytes',
        advice: 'openssl rand -base64 32',
      });
    }
    if (cloudPrevious.arns.length > 0 && !cloudPrevious.region) {
      nodes.push({
        name: 'crypto.cloudKms.region',
        status: 'fail',
        message: 'SVC_CRYPTO_CLOUD_KMS_PREVIOUS_KEK_ARNS is set but SVC_CRYPTO_CLOUD_KMS_REGION is empty',
        advice: 'set the region of the previous KEKs so their keys can be unwrapped and re-wrapped',
      });
    }
    if (pkcs11Previous)
      nodes.push(...pkcs11SettingProblems(pkcs11Previous, 'previous').map((p) => ({ ...p, status: 'fail' as const })));
    if (previous.some((k) => Buffer.from(k, 'base64').length !== 32)) {
      nodes.push({
        name: 'crypto.previousKeks',
        status: 'fail',
        message: 'every entry of SVC_CRYPTO_LOCAL_PREVIOUS_KEKS must be base64 of exactly 32 bytes',
        advice: 'list the earlier SVC_CRYPTO_LOCAL_KEK values, comma-separated',
      });
    }
    return nodes;
  },
  create: ({ config, deps, logger }) => {
    if (config.source.kind === 'refused') throw new Error('no KEK configured for a persistent journal');
    const local = new LocalRootOfTrust(config.source, config.previous, logger);
    const { arns, region, endpoint, timeoutMs } = config.cloudPrevious;
    const others: RootOfTrust[] = [];
    // Moving back from cloud-kms or pkcs11: their KEKs still unwrap until rewrap has moved every key here.
    if (arns.length > 0)
      others.push(
        new CloudKmsRootOfTrust(
          { region, endpoint, timeoutMs, kekArn: arns[0]!, previousKekArns: arns.slice(1) },
          deps.metrics.registry,
          logger,
          { probeAtStart: false },
        ),
      );
    if (config.pkcs11Previous)
      others.push(new Pkcs11RootOfTrust(config.pkcs11Previous, deps.metrics.registry, logger, { role: 'previous' }));
    return others.length === 0 ? local : new RootOfTrustChain(local, others);
  },
});
