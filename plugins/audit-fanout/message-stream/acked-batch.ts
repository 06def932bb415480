import type { Msg, NatsConnection, Status, Subscription } from 'nats';

/** What the publisher uses of the nats module, which the sink loads on its first connect. */
export type NatsHelpers = Pick<typeof import('nats'), 'createInbox' | 'headers'>;

interface PendingBatch {
  subject: string;
  waiting: number;
  failure: string | undefined;
  settle: (failure: string | undefined) => void;
}

/**
 * Publishes a batch of messages to JetStream and resolves once the stream has acknowledged every one:
 * each message goes out with core NATS `publish`, its reply subject under one inbox of this connection,
 * where one subscription collects the acknowledgements of every batch. The client's `js.publish` does the
 * same one message at a time, with a request object, a timer and an Error (for its stack) per message,
 * which cost more of the node's request loop than the publish itself; here a batch has one timer.
 * A message whose acknowledgement says error, a "no responders" status (no stream captures the subject)
 * or a batch not fully acknowledged within `timeoutMs` rejects the batch: the caller retries it whole,
 * and the stream's duplicate window (`Nats-Msg-Id`) keeps what was stored the first time from being stored twice.
 */
export class AckedBatchPublisher {
  private readonly inbox: string;
  private readonly subscription: Subscription;
  private readonly pending = new Map<string, PendingBatch>();
  private nextBatch = 0;
  private readonly statuses: AsyncIterable<Status> & { stop?: () => void };

  constructor(
    private readonly nc: NatsConnection,
    private readonly nats: NatsHelpers,
  ) {
    this.inbox = nats.createInbox();
    this.subscription = nc.subscribe(`${this.inbox}.*`, {
      callback: (err, msg) => (err ? this.failAll(err.message) : this.acknowledged(msg)),
    });
    this.statuses = nc.status();
    void this.watchPermissions();
  }

  /**
   * The acknowledgements can no longer arrive: the server refused the inbox subscription (the client does
   * not subscribe again, even on a reconnect). The caller then needs a new connection and publisher.
   */
  get broken(): boolean {
    return this.subscription.isClosed();
  }

  publish(subject: string, messages: Array<{ id: string; data: string }>, timeoutMs: number): Promise<void> {
    if (messages.length === 0) return Promise.resolve();
    const token = String(this.nextBatch++);
    const reply = `${this.inbox}.${token}`;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => settle(`${batch.waiting} of ${messages.length} not acknowledged within ${timeoutMs} ms`),
        timeoutMs,
      );
      const settle = (failure: string | undefined) => {
        clearTimeout(timer);
        this.pending.delete(token);
        if (failure) reject(new Error(failure));
        else resolve();
      };
      const batch: PendingBatch = { subject, waiting: messages.length, failure: undefined, settle };
      this.pending.set(token, batch);
      try {
        // Back to back on one connection, so the stream stores them in this order.
        for (const m of messages) {
          const h = this.nats.headers();
          h.set('Nats-Msg-Id', m.id);
          this.nc.publish(subject, m.data, { reply, headers: h });
        }
      } catch (err) {
        settle((err as Error).message);
      }
    });
  }

  close(): void {
    this.subscription.unsubscribe();
    this.statuses.stop?.();
    this.failAll('publisher closed');
  }

  private acknowledged(msg: Msg): void {
    const batch = this.pending.get(msg.subject.slice(this.inbox.length + 1));
    if (!batch) return; // a batch that already timed out
    batch.failure ??= ackFailure(msg);
    if (--batch.waiting === 0) batch.settle(batch.failure);
  }

  private failAll(reason: string, subject?: string): void {
    for (const batch of [...this.pending.values()])
      if (subject === undefined || batch.subject === subject) batch.settle(reason);
  }

  /**
   * The server refuses a publish the user may not make with an error on the connection, not an answer to
   * the message, so no acknowledgement ever comes: the batches to that subject fail at once, naming the
   * missing right, instead of when their time is up. A refused subscription to the inbox fails every batch.
   */
  private async watchPermissions(): Promise<void> {
    for await (const status of this.statuses) {
      const refused = status.permissionContext;
      if (!refused) continue;
      if (refused.operation === 'publish')
        this.failAll(`Permissions Violation for Publish to "${refused.subject}"`, refused.subject);
      else if (refused.subject.startsWith(this.inbox))
        this.failAll(`Permissions Violation for Subscription to "${refused.subject}"`);
    }
  }
}

/** Why an acknowledgement is not one, or undefined for a stored (or duplicate) message. */
function ackFailure(msg: Msg): string | undefined {
  if (msg.data.length === 0)
    return msg.headers?.code === 503 ? 'no responders' : `status ${msg.headers?.code ?? 'unknown'}`;
  let ack: { stream?: string; error?: { description?: string; code?: number } };
  try {
    ack = JSON.parse(msg.string());
  } catch {
    return 'an acknowledgement that is not JSON';
  }
  if (ack.error) return ack.error.description ?? `error ${ack.error.code}`;
  return ack.stream ? undefined : 'an acknowledgement naming no stream';
}
