import pg from 'pg';
import type { ChangeStamp, KnexSettings } from './knex-settings.ts';

/** The channel a trigger on svc_key_events notifies at the commit of every transaction that appends key events. */
export const KEY_EVENTS_CHANNEL = 'svc_key_events';
const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 10_000;

/**
 * PostgreSQL's change stamp: a connection of its own LISTENs on KEY_EVENTS_CHANNEL, and every notification
 * moves the stamp. PostgreSQL sends a notification to each listening session once the appending transaction
 * has committed, so a cached key confirmed at one stamp is unchanged while the stamp stays, whichever node
 * wrote (the trigger fires for every writer, older nodes and hand-made SQL included).
 *
 * The stamp is undefined whenever that is not known: before the first LISTEN has taken effect, and from the
 * moment the connection fails until a new one listens again. Notifications sent meanwhile are lost, so the
 * stamp moves on reconnecting, and every key is confirmed once more by a query before it is trusted again.
 * A connection that cannot be made is retried with a growing pause; until then every use queries, as it does
 * without a stamp.
 */
export class PostgresChangeStamp implements ChangeStamp {
  /** A stamp on the database of `settings` (a PostgreSQL journal's) that has made its first attempt to listen. */
  static async listening(settings: KnexSettings): Promise<PostgresChangeStamp> {
    const stamp = new PostgresChangeStamp(settings.config.connection as pg.ClientConfig);
    await stamp.listen();
    return stamp;
  }

  private client: pg.Client | undefined;
  private stamp = 0;
  private listening = false;
  private closed = false;
  private retryMs = FIRST_RETRY_MS;
  private retry: NodeJS.Timeout | undefined;

  constructor(private readonly connection: pg.ClientConfig) {}

  /** Resolves once the first attempt to listen has ended, whether or not it succeeded (a failure is retried). */
  async listen(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client(this.connection);
    this.client = client;
    const lost = () => this.lost(client);
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', () => {
      if (this.client === client) this.stamp++;
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${KEY_EVENTS_CHANNEL}`);
      if (this.client !== client) return;
      this.listening = true;
      this.retryMs = FIRST_RETRY_MS;
    } catch {
      lost();
    }
  }

  read(): number | undefined {
    return this.listening ? this.stamp : undefined;
  }

  close(): void {
    this.closed = true;
    this.listening = false;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    void client?.end().catch(() => undefined);
  }

  /** The connection is gone: nothing is known until a new one listens, and what a check confirmed before no longer counts. */
  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.listening = false;
    this.stamp++;
    void client.end().catch(() => undefined);
    if (this.closed) return;
    this.retry = setTimeout(() => void this.listen(), this.retryMs);
    this.retry.unref();
    this.retryMs = Math.min(MAX_RETRY_MS, this.retryMs * 2);
  }
}
