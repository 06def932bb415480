import path from 'node:path';
import {
  type Deployment,
  definePlugin,
  devGradeFinding,
  KERNEL_API_VERSION,
  type PreflightNode,
  rootOfTrustPort,
  type SettingsOf,
} from '../../../kernel/index.ts';
import { sqlitePath } from '../../sql-support/connection-url.ts';
import { commaList } from '../support/comma-list.ts';
import { badPreviousKeks, localKekSettings } from './config.ts';
import { type KekSource, LocalRootOfTrust } from './local-root-of-trust.ts';

type Slice = { source: KekSource | { kind: 'refused'; journalKind: string }; previous: string[] };

/** Where the KEK comes from: configured, a file beside journal.db, or per process. */
function kekSource({ crypto, rdbEmbedded }: SettingsOf<typeof localKekSettings>, deployment: Deployment): Slice {
  const slice = (source: Slice['source']): Slice => ({ source, previous: commaList(crypto.previousKeks) });
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
  preflight: ({ source, previous }, env) => {
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
          'set SVC_CRYPTO_LOCAL_KEK to base64 of 32 random bytes (openssl rand ' +
          '-base64 32), or use crypto.kind cloud-kms',
      });
    } else if (source.kind === 'configured' && Buffer.from(source.kekBase64, 'base64').length !== 32) {
      nodes.push({
        name: 'crypto.localKek',
        status: 'fail',
        message: 'SVC_CRYPTO_LOCAL_KEK must be base64 of exactly 32 bytes',
        advice: 'openssl rand -base64 32',
      });
    }
    return [...nodes, ...badPreviousKeks(previous)];
  },
  create: ({ config, logger }) => {
    if (config.source.kind === 'refused') throw new Error('no KEK configured for a persistent journal');
    return new LocalRootOfTrust(config.source, config.previous, logger);
  },
});
