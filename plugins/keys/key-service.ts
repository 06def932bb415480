import type { Clock } from '../../kernel/ports/clock.ts';
import type { KeyJournal } from '../../kernel/ports/journal.ts';
import type { Lifecycle } from '../../kernel/ports/lifecycle.ts';
import type { Logger } from '../../kernel/ports/logger.ts';
import type { OperationRunner } from '../../kernel/ports/operation-runner.ts';
import { createPortRef } from '../../kernel/ports/port-ref.ts';
import type { RootOfTrust } from '../../kernel/ports/root-of-trust.ts';
import { KeyCrypto } from './key-crypto.ts';
import { KeyLifecycle } from './key-lifecycle.ts';
import { KeyStore } from './key-store.ts';
import { RotationScheduler } from './rotation-scheduler.ts';

/** One key service per process: every operation shares its caches and its locks. */
export class KeyService implements Lifecycle {
  readonly lifecycle: KeyLifecycle;
  readonly crypto: KeyCrypto;
  private readonly scheduler: RotationScheduler;

  constructor(journal: KeyJournal, rootOfTrust: RootOfTrust, operations: OperationRunner, clock: Clock, logger: Logger, rotationCheckSeconds: number) {
    const store = new KeyStore(journal, rootOfTrust);
    this.lifecycle = new KeyLifecycle(store, clock);
    this.scheduler = new RotationScheduler(store, journal, operations, clock, logger, Math.max(1, rotationCheckSeconds));
    this.crypto = new KeyCrypto(store, this.scheduler);
  }

  start(): Promise<void> {
    return this.scheduler.start();
  }

  stop(): Promise<void> {
    return this.scheduler.stop();
  }
}

/** The keys plugins' own port: the service instance that the operations share. */
export const keyServicePort = createPortRef<KeyService>('keyService');
