import pg from 'pg';
import type { Logger } from '../../kernel/index.ts';
import type { ChangeStamp, KnexSettings } from './knex-settings.ts';
import {
  installKeyEventsTrigger,
  KEY_EVENTS_CHANNEL,
  PROBE_KEY_EVENTS_TRIGGER,
} from './postgres-key-events-trigger.ts';

export interface ChangeStampTiming {
  /** How often the listening connection proves it still hears the trigger (a heartbeat through it). */
  heartbeatMs: number;
  /** How long after the last notification heard the stamp stops vouching. */
  trustMs: number;
}
const TIMING: ChangeStampTiming = { heartbeatMs: 1_000, trustMs: 3_000 };
/** The listening connection's name in pg_stat_activity. */
export const LISTENER_NAME = 'svc-key-changes';
const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 10_000;

/**
 * PostgreSQL's change stamp: a connection of its own LISTENs on KEY_EVENTS_CHANNEL, and every notification
 * moves the stamp. The trigger notifies at the commit of every transaction that writes key events, whoever
 * wrote them, so a cached key confirmed at one stamp is unchanged while the stamp stays.
 *
 * It vouches only while it demonstrably hears the trigger: every heartbeatMs the connection runs a statement
 * that fires the trigger and changes nothing, and once nothing was heard for trustMs (a connection that died
 * without a word, a missing trigger, a pooler that drops notifications) it stops vouching and starts over on a
 * new connection. It vouches for nothing before the first LISTEN, nor from a loss until a new connection listens;
 * the stamp moves on every loss, since notifications sent meanwhile were not heard. While it does not vouch,
 * every use of a cached key is checked with a query, as without a stamp.
 */
export class PostgresChangeStamp implements ChangeStamp {
  /** A stamp on the database of `settings` (a PostgreSQL journal's) that has made its first attempt to listen. */
  static async listening(settings: KnexSettings, logger?: Logger, timing = TIMING): Promise<PostgresChangeStamp> {
    const stamp = new PostgresChangeStamp(settings.config.connection as pg.ClientConfig, logger, timing);
    await stamp.listen();
    return stamp;
  }

  private client: pg.Client | undefined;
  private stamp = 0;
  private listening = false;
  private closed = false;
  /** When (performance.now()) the last notification was heard. */
  private heardAt = Number.NEGATIVE_INFINITY;
  private retryMs = FIRST_RETRY_MS;
  private retry: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  /** Said in the log that notifications are not heard, and not yet that they are again. */
  private saidLost = false;

  constructor(
    private readonly connection: pg.ClientConfig,
    private readonly logger?: Logger,
    private readonly timing = TIMING,
  ) {}

  /** Resolves once this attempt to listen has ended, whether or not it succeeded (a failure is retried). */
  async listen(): Promise<void> {
    if (this.closed) return;
    const timeout = this.connection.connectionTimeoutMillis || 10_000;
    const client = new pg.Client({
      ...this.connection,
      keepAlive: true,
      query_timeout: timeout,
      application_name: LISTENER_NAME,
    });
    this.client = client;
    const lost = (err?: Error) => this.lost(client, err?.message ?? 'the connection ended');
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', () => {
      if (this.client !== client) return;
      this.stamp++;
      this.heardAt = performance.now();
    });
    try {
      await client.connect();
      await installKeyEventsTrigger(client);
      await client.query(`LISTEN ${KEY_EVENTS_CHANNEL}`);
      if (this.client !== client) return;
      this.listening = true;
      this.heardAt = performance.now();
      this.retryMs = FIRST_RETRY_MS;
      if (this.saidLost) this.logger?.info('key change notifications heard again');
      this.saidLost = false;
      this.heartbeat = setInterval(() => this.beat(client), this.timing.heartbeatMs);
      this.heartbeat.unref();
    } catch (err) {
      lost(err as Error);
    }
  }

  read(): number | undefined {
    if (!this.listening) return undefined;
    if (performance.now() - this.heardAt > this.timing.trustMs) {
      this.lost(this.client, `no notification heard for ${this.timing.trustMs} ms`);
      return undefined;
    }
    return this.stamp;
  }

  close(): void {
    this.closed = true;
    this.listening = false;
    clearTimeout(this.retry);
    clearInterval(this.heartbeat);
    const client = this.client;
    this.client = undefined;
    void client?.end().catch(() => undefined);
  }

  /** Proves the connection still hears the trigger; a heartbeat that fails, or goes unheard, ends it. */
  private beat(client: pg.Client): void {
    if (this.client !== client) return;
    if (performance.now() - this.heardAt > this.timing.trustMs) {
      this.lost(client, `no notification heard for ${this.timing.trustMs} ms`);
      return;
    }
    client.query(PROBE_KEY_EVENTS_TRIGGER).catch((err: Error) => this.lost(client, err.message));
  }

  /** The connection is gone: nothing is known until a new one listens, and what a check confirmed before no longer counts. */
  private lost(client: pg.Client | undefined, why: string): void {
    if (!client || this.client !== client) return;
    if (!this.saidLost && !this.closed)
      this.logger?.warn('key change notifications not heard; every use of a cached key is checked until they are', {
        reason: why,
      });
    this.saidLost = true;
    this.client = undefined;
    this.listening = false;
    this.stamp++;
    clearInterval(this.heartbeat);
    void client.end().catch(() => undefined);
    if (this.closed) return;
    this.retry = setTimeout(() => void this.listen(), this.retryMs);
    this.retry.unref();
    this.retryMs = Math.min(MAX_RETRY_MS, this.retryMs * 2);
  }
}
