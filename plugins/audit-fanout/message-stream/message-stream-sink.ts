import type { NatsConnection } from 'nats';
import {
  type AuditEvent,
  type AuditFanoutSink,
  type DeliverySettings,
  eventJson,
  type Logger,
} from '../../../kernel/index.ts';
import { AckedBatchPublisher } from './acked-batch.ts';
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
 * retries is stored once within the stream's duplicate window. A batch is delivered only once the stream
 * has acknowledged every message of it (acked-batch.ts): a missing stream ("no responders") or a server
 * that is down fails the batch, which the kernel's queue retries or dead-letters. It connects on first
 * delivery and lets the client reconnect.
 */
export class MessageStreamSink implements AuditFanoutSink {
  readonly name: string;
  readonly delivery: DeliverySettings;
  private connection: Promise<{ nc: NatsConnection; publisher: AckedBatchPublisher }> | undefined;
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
    open?.publisher.close();
    await open?.nc.drain().catch(() => undefined);
  }

  /** The open connection, or a new one when the last one's publisher can no longer hear acknowledgements. */
  private async usable(): Promise<{ nc: NatsConnection; publisher: AckedBatchPublisher }> {
    const open = await this.connect();
    if (!open.publisher.broken) return open;
    this.logger.warn('audit message-stream lost its acknowledgement subscription; reconnecting', { sink: this.name });
    await this.stop();
    return this.connect();
  }

  deliver(event: AuditEvent): Promise<void> {
    return this.deliverBatch([event]);
  }

  async deliverBatch(events: AuditEvent[]): Promise<void> {
    const { publisher } = await this.usable();
    if (this.settings.autoCreateStream && !this.streamReady) await this.ensureStream();
    try {
      await publisher.publish(
        this.settings.subject,
        events.map((e) => ({ id: e.id, data: eventJson(e) })),
        PUBLISH_TIMEOUT_MS,
      );
    } catch (err) {
      const message = (err as Error).message;
      throw new Error(
        `message-stream ${this.settings.subject}: ${message === 'no responders' ? `no stream captures the subject (${this.settings.stream} missing?)` : message}`,
      );
    }
  }

  private connect(): Promise<{ nc: NatsConnection; publisher: AckedBatchPublisher }> {
    this.connection ??= (async () => {
      const { servers, credentialsFile } = this.settings;
      const authenticator = credentialsFile ? credentialsAuthenticator(credentialsFile) : undefined;
      // Loaded on the first connect: only a deployment with a message-stream sink pays for nats.
      const nats = await import('nats');
      const nc = await nats.connect({
        servers,
        authenticator,
        name: 'svc-kms audit',
        maxReconnectAttempts: -1,
        reconnectTimeWait: 500,
        timeout: 3_000,
      });
      this.logger.info('audit message-stream connected', { sink: this.name, subject: this.settings.subject });
      return { nc, publisher: new AckedBatchPublisher(nc, nats) };
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
