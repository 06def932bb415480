import {
  type AuditPipelinePort,
  type Clock,
  createPortRef,
  type KeyJournal,
  type Lifecycle,
  type Logger,
  type OperationRunner,
  type RootOfTrust,
  UNTRACED,
} from '../../kernel/index.ts';
import type { Registry } from 'prom-client';
import { KeyJwks } from './key-jwks.ts';
import { KeyCrypto } from './key-crypto.ts';
import { KeyBatchCrypto } from './key-batch-crypto.ts';
import { KeyLifecycle } from './key-lifecycle.ts';
import { KeyLocator } from './key-locator.ts';
import { KeyAttributes } from './key-attributes.ts';
import { KeyAliasing } from './key-aliasing.ts';
import { KeyStore } from './key-store.ts';
import { KeyWrapping, type KwkCacheSettings } from './key-wrapping.ts';
import { ErasureWorker } from './erasure-worker.ts';
import { KeyExport } from './key-export.ts';
import { KeyImport } from './key-import.ts';
import { RotationScheduler } from './rotation-scheduler.ts';
import { KeyDestruction, type DestructionSettings } from './key-destruction.ts';
import { DestroyScheduler } from './destroy-scheduler.ts';

/** One key service per process: every operation shares its caches and its locks. */
export class KeyService implements Lifecycle {
  readonly lifecycle: KeyLifecycle;
  readonly crypto: KeyCrypto;
  readonly jwks: KeyJwks;
  /** Encrypt, decrypt, sign and verify of many items under one key, read and checked once per batch. */
  readonly batches: KeyBatchCrypto;
  readonly wrapping: KeyWrapping;
  /** The background erase after destroy (svc_erasure_pending, the `erasure` readiness check). */
  readonly erasure: ErasureWorker;
  /** Export of exportable keys' material, and import (bring your own key). */
  readonly exporter: KeyExport;
  readonly importer: KeyImport;
  /** Finding keys (Locate) through the journal's key index. */
  readonly locator: KeyLocator;
  /** The reversible disable and tags. */
  readonly attributes: KeyAttributes;
  /** Aliases (alias/NAME) and the aliases shown with each key. */
  readonly aliasing: KeyAliasing;
  private readonly scheduler: RotationScheduler;
  /** Destroy with a waiting period, its cancel and execution, and version trim. */
  readonly destruction: KeyDestruction;
  private readonly destroyScheduler: DestroyScheduler;
  private readonly store: KeyStore;
  /** What authorization may know of a key (id, name, owner, tenant); undefined for an unknown id. */
  readonly facts = (id: unknown) => this.store.facts(id);

  constructor(
    private readonly journal: KeyJournal,
    rootOfTrust: RootOfTrust,
    operations: OperationRunner,
    clock: Clock,
    private readonly logger: Logger,
    settings: {
      rotationCheckSeconds: number;
      kwkCache: KwkCacheSettings;
      destruction?: DestructionSettings & { checkSeconds: number };
    },
    metrics: Registry,
    audit?: AuditPipelinePort,
  ) {
    this.wrapping = new KeyWrapping(journal, rootOfTrust, logger, settings.kwkCache, metrics);
    const store = new KeyStore(journal, this.wrapping, settings.kwkCache);
    this.store = store;
    this.erasure = new ErasureWorker(journal, audit, clock, logger);
    this.lifecycle = new KeyLifecycle(store, clock, this.erasure);
    this.scheduler = new RotationScheduler(
      store,
      journal,
      operations,
      clock,
      logger,
      Math.max(1, settings.rotationCheckSeconds),
    );
    this.crypto = new KeyCrypto(store, this.scheduler);
    this.jwks = new KeyJwks(store, this.scheduler);
    this.batches = new KeyBatchCrypto(store, this.scheduler);
    const destruction = settings.destruction ?? { destroyWaitingDays: 0, agentDestroyWaitingDays: 7, checkSeconds: 60 };
    this.destruction = new KeyDestruction(store, this.lifecycle, this.wrapping, this.erasure, clock, destruction);
    this.destroyScheduler = new DestroyScheduler(
      journal,
      operations,
      clock,
      logger,
      Math.max(1, destruction.checkSeconds),
    );
    this.exporter = new KeyExport(store);
    this.importer = new KeyImport(store, journal, rootOfTrust, clock);
    this.locator = new KeyLocator(journal, store);
    this.attributes = new KeyAttributes(store, clock);
    this.aliasing = new KeyAliasing(store, journal.aliases, clock, this.facts);
  }

  /**
   * Warms the key cache (the scheduler walks every key), deletes what an older version's destroy left
   * stored, then resumes the erase of every destroyed key whose storage is not erased yet (in the background).
   */
  async start(): Promise<void> {
    await this.wrapping.checkRootOfTrust();
    await this.scheduler.start();
    for (const key of this.store.cached()) {
      if (key.state !== 'Destroyed' || !(await this.journal.hasMaterial(key.id))) continue;
      await this.store.scheduleErasure(key, UNTRACED);
      this.logger.warn('deleted the material a destroy had left behind; its erase follows', { keyId: key.id });
    }
    await this.erasure.start();
    this.destroyScheduler.start();
    await this.reportSharedNames();
  }

  /**
   * Keys that came to share a name before names were unique keep it (nothing is renamed or destroyed
   * for the operator); the start says which, as a warning finding, once per start.
   */
  private async reportSharedNames(): Promise<void> {
    const shared = await this.journal.duplicateNames(SHARED_NAMES_REPORTED);
    if (shared.length === 0) return;
    this.logger.warn(
      'finding keys.uniqueNames: some key names are held by more than one key ' +
        'that is not Destroyed (created before names were unique)',
      {
        finding: 'keys.uniqueNames',
        names: shared.map(({ name, keyIds }) => ({ name, keyIds })),
        advice:
          'they keep working and GET /v1/keys?name= finds each; no other key may ' +
          'take such a name while one of them lives. Destroy the ones no longer needed',
      },
    );
  }

  async stop(): Promise<void> {
    await this.destroyScheduler.stop();
    await this.erasure.stop();
    await this.scheduler.stop();
  }

  /** Pending erasures are reported, never a reason to take the node out of rotation. */
  readiness(): Record<string, { ok: boolean; state: string; detail?: string }> {
    return { erasure: this.erasure.readiness() };
  }
}

/** Shared names the start reports at most (the log line names each with its keys). */
const SHARED_NAMES_REPORTED = 20;

/** The keys plugins' own port: the service instance that the operations share. */
export const keyServicePort = createPortRef<KeyService>('keyService');
