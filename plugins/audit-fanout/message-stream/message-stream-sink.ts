import { connect, headers as natsHeaders, type JetStreamClient, type NatsConnection } from 'nats';
import type { AuditEvent, AuditFanoutSink, DeliverySettings, Logger } from '../../../kernel/index.ts';
import { connectFailure, credentialsAuthenticator } from './credentials.ts';

export interface MessageStreamSettings {
  name: string;
  servers: string[];
  stream: string;
  subject: string;
  autoCreateStream: boolean;
  credentialsFile: string;
  delivery: DeliverySettings;
}

const PUBLISH_TIMEOUT_MS = 5_000;

/**
 * Publishes each canonical event to JetStream with `Nats-Msg-Id: <event id>`, so a batch the kernel
 * retries is stored once within the stream's duplicate window. A publish resolves only on the stream's
 * acknowledgement: a missing stream ("no responders") or a server that is down fails the batch, which the
 * kernel's queue retries or dead-letters. It connects on first delivery and lets the client reconnect.
 */
export class MessageStreamSink implements AuditFanoutSink {
  readonly name: string;
  readonly delivery: DeliverySettings;
  private connection: Promise<{ nc: NatsConnection; js: JetStreamClient }> | undefined;
  private streamReady = false;

  constructor(
    private readonly settings: MessageStreamSettings,
    private readonly logger: Logger,
  ) {
    this.name = settings.name;
    this.delivery = settings.delivery;
  }

  async stop(): Promise<void> {
    const connection = this.connection;
    this.connection = undefined;
    const open = await connection?.catch(() => undefined);
    await open?.nc.drain().catch(() => undefined);
  }

  deliver(event: AuditEvent): Promise<void> {
    return this.deliverBatch([event]);
  }

  async deliverBatch(events: AuditEvent[]): Promise<void> {
    const { js } = await this.connect();
    if (this.settings.autoCreateStream && !this.streamReady) await this.ensureStream();
    // Published back to back on one connection, so the stream stores them in this order.
    const acks = events.map((e) => {
      const h = natsHeaders();
      h.set('Nats-Msg-Id', e.id);
      return js.publish(this.settings.subject, JSON.stringify(e), { headers: h, timeout: PUBLISH_TIMEOUT_MS });
    });
    const results = await Promise.allSettled(acks);
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) {
      const message = String((failed.reason as Error)?.message ?? failed.reason);
      throw new Error(`message-stream ${this.settings.subject}: ${message === '503' || /no responders/i.test(message) ? `no stream captures the subject (${this.settings.stream} missing?)` : message}`);
    }
  }

  private connect(): Promise<{ nc: NatsConnection; js: JetStreamClient }> {
    this.connection ??= (async () => {
      const { servers, credentialsFile } = this.settings;
      const authenticator = credentialsFile ? credentialsAuthenticator(credentialsFile) : undefined;
      const nc = await connect({ servers, authenticator, name: 'svc-kms audit', maxReconnectAttempts: -1, reconnectTimeWait: 500, timeout: 3_000 });
      this.logger.info('audit message-stream connected', { sink: this.name, subject: this.settings.subject });
      return { nc, js: nc.jetstream() };
    })().catch((err) => {
      this.connection = undefined;
      throw new Error(connectFailure(err, this.settings.servers, this.settings.credentialsFile));
    });
    return this.connection;
  }

  private async ensureStream(): Promise<void> {
    const { nc } = await this.connect();
    const jsm = await nc.jetstreamManager();
    try {
      await jsm.streams.info(this.settings.stream);
    } catch {
      await jsm.streams.add({ name: this.settings.stream, subjects: [this.settings.subject] });
      this.logger.info('audit message-stream created its stream', { sink: this.name, stream: this.settings.stream });
    }
    this.streamReady = true;
  }
}
