import path from 'node:path';
import type { BaseConfig } from '../../../config/schema.ts';
import { sqlitePath } from '../../../config/urls.ts';
import type { ConfigValues } from '../../../kernel/config-values.ts';
import { localKekConfig } from './config.ts';
import { definePlugin, KERNEL_API_VERSION } from '../../../kernel/define-plugin.ts';
import { devGradeFinding, type PreflightNode } from '../../../kernel/preflight.ts';
import { rootOfTrustPort } from '../../../kernel/ports/root-of-trust.ts';
import { LocalRootOfTrust, type KekSource } from './local-root-of-trust.ts';

type Slice = { source: KekSource | { kind: 'refused'; journalKind: string }; previous: string[] };

/** Where the KEK comes from follows DECISIONS "Root of trust": configured, a file beside journal.db, or per process. */
function kekSource(all: BaseConfig & ConfigValues<typeof localKekConfig>): Slice {
  const previous = all.crypto.previousKeks.split(',').map((k) => k.trim()).filter(Boolean);
  if (all.crypto.localKek) return { source: { kind: 'configured', kekBase64: all.crypto.localKek }, previous };
  const journalKind = all.journal.kind;
  if (journalKind === 'rdb-embedded') return { source: { kind: 'file', file: path.join(path.dirname(sqlitePath(all.rdbEmbedded.jdbcUrl)), 'kek.key') }, previous };
  if (journalKind === 'in-memory') return { source: { kind: 'ephemeral' }, previous };
  return { source: { kind: 'refused', journalKind }, previous };
}

export default definePlugin({
  id: 'root-of-trust-local',
  apiVersion: KERNEL_API_VERSION,
  provides: rootOfTrustPort,
  kind: 'in-memory',
  description: 'AES-256-GCM under a KEK held in process memory',
  config: localKekConfig,
  configSlice: kekSource,
  preflight: ({ source, previous }, env) => {
    const nodes: PreflightNode[] = [
      devGradeFinding(
        'crypto.kind',
        env.exposed,
        `crypto.kind is in-memory: the KEK lives in this process (${source.kind === 'file' ? 'and a file beside journal.db' : source.kind})`,
        'use SVC_CRYPTO_KIND=cloud-kms so key material is protected by an HSM-backed key',
      ),
    ];
    if (source.kind === 'refused') {
      nodes.push({
        name: 'crypto.localKek',
        status: 'fail',
        message: `journal.kind ${source.journalKind} keeps keys across restarts, but no SVC_CRYPTO_LOCAL_KEK is set: keys would be unreadable after a restart`,
        advice: 'set SVC_CRYPTO_LOCAL_KEK to base64 of 32 random bytes (openssl rand -base64 32), or use crypto.kind cloud-kms',
      });
    } else if (source.kind === 'configured' && Buffer.from(source.kekBase64, 'base64').length !== 32) {
      nodes.push({ name: 'crypto.localKek', status: 'fail', message: 'SVC_CRYPTO_LOCAL_KEK must be base64 of exactly 32 bytes', advice: 'openssl rand -base64 32' });
    }
    if (previous.some((k) => Buffer.from(k, 'base64').length !== 32)) {
      nodes.push({ name: 'crypto.previousKeks', status: 'fail', message: 'every entry of SVC_CRYPTO_LOCAL_PREVIOUS_KEKS must be base64 of exactly 32 bytes', advice: 'list the earlier SVC_CRYPTO_LOCAL_KEK values, comma-separated' });
    }
    return nodes;
  },
  create: ({ config }) => {
    if (config.source.kind === 'refused') throw new Error('no KEK configured for a persistent journal');
    return new LocalRootOfTrust(config.source, config.previous);
  },
});
