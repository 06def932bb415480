import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Logger } from '../../kernel/index.ts';
import type { ChangeStamp, KnexSettings } from './knex-settings.ts';
import {
  installKeyEventsTrigger,
  KEY_EVENTS_CHANNEL,
  PROBE_PREFIX,
  probeStatement,
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
 * It vouches only while it demonstrably hears the trigger: every heartbeatMs the connection runs a probe, a
 * transaction that fires the trigger, changes nothing and marks its notification as this stamp's own. Hearing a
 * probe proves that every key event committed before the probe was sent has been heard; the stamp vouches from
 * the first probe heard on a connection, and stops once none sent in the last trustMs was heard (a connection
 * that died without a word, a missing trigger, a pooler that drops notifications), then starts over on a new
 * connection. Probes move no stamp (other processes' probes are ignored), so a confirmed key stays confirmed
 * until a key event. The stamp moves on every loss, since notifications sent meanwhile were not heard. While it
 * does not vouch, every use of a cached key is checked with a query, as without a stamp.
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
  /** When (performance.now()) the newest probe heard back was sent: everything committed before it was heard. */
  private heardAt = Number.NEGATIVE_INFINITY;
  /** This stamp's probes: their payloads name it, so another process's probes are told apart. */
  private readonly probeId = randomUUID();
  private probes = 0;
  /** When each probe not yet heard back was sent, by number. */
  private readonly sent = new Map<number, number>();
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
    client.on('notification', ({ payload }) => {
      if (this.client !== client) return;
      if (!payload?.startsWith(PROBE_PREFIX)) this.stamp++;
      else if (payload.startsWith(`${PROBE_PREFIX}${this.probeId}-`)) this.heard(Number(payload.split('-').pop()));
    });
    try {
      await client.connect();
      await installKeyEventsTrigger(client);
      await client.query(`LISTEN ${KEY_EVENTS_CHANNEL}`);
      if (this.client !== client) return;
      this.heartbeat = setInterval(() => this.beat(client), this.timing.heartbeatMs);
      this.heartbeat.unref();
      // A session hears its own notification before its transaction's answer: this vouches once it returns.
      await this.probe(client);
    } catch (err) {
      lost(err as Error);
    }
  }

  /** Probe `n` came back: everything committed before it was sent has been heard. */
  private heard(n: number): void {
    const sentAt = this.sent.get(n);
    if (sentAt === undefined) return;
    for (const k of this.sent.keys()) if (k <= n) this.sent.delete(k);
    this.heardAt = Math.max(this.heardAt, sentAt);
    if (this.listening) return;
    this.listening = true;
    this.retryMs = FIRST_RETRY_MS;
    if (this.saidLost) this.logger?.info('key change notifications heard again');
    this.saidLost = false;
  }

  private probe(client: pg.Client): Promise<unknown> {
    const n = ++this.probes;
    this.sent.set(n, performance.now());
    return client.query(probeStatement(`${this.probeId}-${n}`));
  }

  read(): number | undefined {
    if (!this.listening || this.silent(this.client)) return undefined;
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
    if (this.client !== client || this.silent(client)) return;
    this.probe(client).catch((err: Error) => this.lost(client, err.message));
  }

  /** True, having given the connection up, when no probe sent in the last trustMs came back. */
  private silent(client: pg.Client | undefined): boolean {
    if (performance.now() - this.heardAt <= this.timing.trustMs) return false;
    this.lost(client, `no notification heard for ${this.timing.trustMs} ms`);
    return true;
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
    this.sent.clear();
    clearInterval(this.heartbeat);
    void client.end().catch(() => undefined);
    if (this.closed) return;
    this.retry = setTimeout(() => void this.listen(), this.retryMs);
    this.retry.unref();
    this.retryMs = Math.min(MAX_RETRY_MS, this.retryMs * 2);
  }
}
