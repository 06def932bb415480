import {
  type AuditPipelinePort,
  type AuditRecord,
  type Clock,
  type ErasureAttempt,
  isSvcError,
  type KeyJournal,
  type Logger,
  SYSTEM_PRINCIPAL,
  auditIdentity,
} from '../../kernel/index.ts';

export type ErasureState = 'complete' | 'pending';

/** Retries of an erase that did not complete: from half a second, doubling, to at most ten seconds. */
const FIRST_RETRY_MS = 500;
const LAST_RETRY_MS = 10_000;
/** How long a DELETE waits for the erase attempt it started before answering `pending`. */
const ANSWER_WITHIN_MS = 2_000;
/**
 * An attempt holds (or queues for) an exclusive lock on the KWK table, or checkpoints SQLite on the
 * request path's thread, so attempts may take at most this share of the time however often DELETEs
 * ask for one. The share is a budget that refills with time up to BURST_MS: an idle node's attempt
 * starts at once, and a loop of DELETEs soon finds its attempts spaced out.
 */
const ATTEMPT_SHARE = 0.1;
const BURST_MS = 250;

/**
 * The physical erase that follows a destroy, in the background. A destroy commits its event together
 * with the deletion of the key's KWK and material and a durable erasure task (the journal's contract);
 * this worker then asks the journal to scrub its files (checkpoint, rebuild) until every task is done:
 * after each destroy, then with backoff while something prevents it (a reader of SQLite's WAL, a lock
 * or an old snapshot on PostgreSQL), and at start for tasks a previous run left. One attempt runs at a
 * time per node; the journal's attempt never waits long for a lock, so no caller stalls behind it.
 *
 * A key's first failed attempt is audited as a failure (Destroy, InternalError or ServiceUnavailable,
 * context erasure=pending and the reason), and its erase completing after that (or after a restart
 * resumed it) as a success (erasure=complete), both as svc-system; retries in between are logged when
 * the reason changes.
 */
export class ErasureWorker {
  private pending = new Set<string>();
  /** Keys destroyed since the running attempt read its tasks: its result does not speak for them. */
  private fresh = new Set<string>();
  /** Keys whose failed erase is in the audit trail already, so its completion is audited too. */
  private readonly failed = new Set<string>();
  private queued: Promise<void> | undefined;
  private current: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private retryMs = FIRST_RETRY_MS;
  /** Attempt time left to spend (ms; below 0 after an attempt that overspent it), as of budgetAt. */
  private budget = BURST_MS;
  private budgetAt = Date.now();
  /** The wait for the budget while an attempt waits for it. */
  private rest: { timer: NodeJS.Timeout; done: () => void } | undefined;
  private reason: string | undefined;
  private stopped = false;

  constructor(
    private readonly journal: KeyJournal,
    private readonly audit: AuditPipelinePort | undefined,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** How long a DELETE waits for the attempt it started (tests on a loaded machine give it longer). */
    private readonly answerWithinMs = ANSWER_WITHIN_MS,
  ) {}

  /** Keys destroyed whose erase is not complete yet, as this node last saw them (svc_erasure_pending). */
  get count(): number {
    return this.pending.size;
  }

  /**
   * Picks up the tasks a previous run (or another node) left, and starts on them without delaying the
   * boot. Their erase did not complete when it was first tried, so their completion is audited too.
   */
  async start(): Promise<void> {
    this.pending = new Set(await this.journal.pendingErasures());
    for (const keyId of this.pending) this.failed.add(keyId);
    if (this.pending.size > 0) {
      this.logger.warn('destroyed keys still await the erase of their storage; resuming it', {
        keys: this.pending.size,
      });
      void this.attemptSoon();
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.rest) {
      clearTimeout(this.rest.timer);
      this.rest.done();
    }
    await this.queued;
    await this.current;
  }

  /** The readiness detail: pending erasures never make the node unready, they only say so. */
  readiness(): { ok: boolean; state: string; detail?: string } {
    if (this.pending.size === 0) return { ok: true, state: 'ok' };
    return {
      ok: true,
      state: 'pending',
      detail: `${this.pending.size} destroyed key(s) await the erase of their storage: ${this.reason ?? 'in progress'}`,
    };
  }

  /** Whether the key's erase is still pending, here or as a task another node recorded. */
  async isPending(keyId: string): Promise<boolean> {
    return this.pending.has(keyId) || (await this.journal.pendingErasures()).includes(keyId);
  }

  /**
   * Called once a destroy committed: says whether the key is erased. When an attempt can start at once
   * the answer waits (briefly) for it; when one is running or the budget is spent, the next attempt is
   * a background job that covers this key too, and the answer is `pending` without waiting for it:
   * a caller never queues behind other callers' erases.
   */
  async afterDestroy(keyId: string): Promise<ErasureState> {
    this.pending.add(keyId);
    this.fresh.add(keyId);
    const startsNow = !this.current && !this.queued && this.refilled() > 0;
    const attempt = this.attemptSoon();
    if (!startsNow) return 'pending';
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.answerWithinMs);
    });
    await Promise.race([attempt, waited]).finally(() => clearTimeout(timer));
    return this.pending.has(keyId) ? 'pending' : 'complete';
  }

  /**
   * The next attempt: one already waiting to start is shared; otherwise one starts when the running one
   * ends and the budget allows (ATTEMPT_SHARE), so a client repeating DELETE on a pending key, or
   * destroying keys in a loop, cannot keep the KWK table locked for everyone else.
   */
  private attemptSoon(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.queued) return this.queued;
    const next: Promise<void> = (this.current ?? Promise.resolve())
      .then(() => this.rested())
      .then(() => {
        this.queued = undefined;
        this.current = next;
        return this.attempt();
      })
      .finally(() => {
        if (this.current === next) this.current = undefined;
      });
    this.queued = next;
    return next;
  }

  /** The budget as of now: what was left plus the share of the time since. */
  private refilled(): number {
    const now = Date.now();
    this.budget = Math.min(BURST_MS, this.budget + (now - this.budgetAt) * ATTEMPT_SHARE);
    this.budgetAt = now;
    return this.budget;
  }

  /** Resolves once the budget allows an attempt (at once when it does, or at stop). */
  private rested(): Promise<void> {
    const wait = -this.refilled() / ATTEMPT_SHARE;
    if (wait <= 0 || this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.rest = undefined;
        resolve();
      };
      this.rest = { timer: setTimeout(done, wait), done };
    });
  }

  private async attempt(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.stopped) return;
    this.fresh = new Set();
    let result: ErasureAttempt;
    let unavailable = false;
    const started = Date.now();
    try {
      result = await this.journal.erasePending();
    } catch (err) {
      unavailable = isSvcError(err) && err.code === 'ServiceUnavailable';
      this.logger.error('erase of destroyed keys failed; retrying', { error: (err as Error).message });
      // The message may name the database host: the audit and readiness get a fixed text.
      result = {
        erased: [],
        pending: [...this.pending],
        reason: unavailable
          ? 'the journal database is unreachable'
          : 'the journal database failed (see the service log)',
      };
    }
    this.refilled();
    this.budget -= Date.now() - started;
    this.pending = new Set([...result.pending, ...this.fresh]);
    for (const keyId of result.erased) {
      if (this.failed.delete(keyId)) await this.record(keyId, 'Success', { erasure: 'complete' });
    }
    if (result.erased.length > 0)
      this.logger.info('erased the storage of destroyed keys', { keys: result.erased.length });
    // Keys another node finished: nothing left to audit here.
    for (const keyId of this.failed) if (!this.pending.has(keyId)) this.failed.delete(keyId);
    if (this.pending.size === 0) {
      this.retryMs = FIRST_RETRY_MS;
      this.reason = undefined;
      return;
    }
    if (result.reason !== this.reason)
      this.logger.warn('erase of destroyed keys is not complete; retrying', {
        keys: this.pending.size,
        reason: result.reason,
      });
    this.reason = result.reason;
    for (const keyId of result.pending) {
      if (this.failed.has(keyId)) continue;
      this.failed.add(keyId);
      await this.record(keyId, unavailable ? 'ServiceUnavailable' : 'InternalError', {
        erasure: 'pending',
        'erasure.reason': result.reason ?? 'unknown',
      });
    }
    this.scheduleRetry();
  }

  private scheduleRetry(): void {
    if (this.stopped) return;
    // Jittered, so nodes sharing one database do not retry in step.
    const delay = this.retryMs * (0.5 + Math.random() / 2);
    this.retryMs = Math.min(LAST_RETRY_MS, this.retryMs * 2);
    this.timer = setTimeout(() => void this.attemptSoon(), delay);
    this.timer.unref();
  }

  /** One audit row about a key's erase, written by svc-system; a failed write is logged, never thrown. */
  private async record(keyId: string, outcome: string, context: Record<string, string>): Promise<void> {
    if (!this.audit) return;
    const record: AuditRecord = {
      ...auditIdentity(this.clock.now()),
      principal: { subject: SYSTEM_PRINCIPAL.subject, kind: SYSTEM_PRINCIPAL.kind },
      operation: 'Destroy',
      resource: keyId,
      outcome,
      context,
      correlationId: `erasure-${keyId}`,
    };
    try {
      await this.audit.record(record);
    } catch (err) {
      this.logger.error('audit write of an erase outcome failed', { keyId, outcome, error: (err as Error).message });
    }
  }
}
