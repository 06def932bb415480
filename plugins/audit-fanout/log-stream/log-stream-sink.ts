import type { Producer } from 'kafkajs';
import {
  type AuditEvent,
  type AuditFanoutSink,
  type DeliverySettings,
  eventJson,
  type Logger,
} from '../../../kernel/index.ts';
import { askAnyBrokerWhenControllerUnknown } from './any-broker-producer-id.ts';

export interface LogStreamSettings {
  name: string;
  brokers: string[];
  topic: string;
  clientId: string;
  delivery: DeliverySettings;
}

/**
 * Produces each canonical event to a Kafka-protocol topic with kafkajs: an idempotent producer, acks from
 * all in-sync replicas, the correlationId as message key (one request's events land on one partition, in
 * order), the canonical JSON as value, header `svc-event-id`. It connects on first delivery, so a broker
 * that is down at boot delays audit export (queued, retried) but never the service; after a failure it
 * reconnects, and the kernel's queue retries the batch.
 */
export class LogStreamSink implements AuditFanoutSink {
  readonly name: string;
  readonly delivery: DeliverySettings;
  private producer: Producer | undefined;
  private connecting: Promise<Producer> | undefined;

  constructor(
    private readonly settings: LogStreamSettings,
    private readonly logger: Logger,
  ) {
    this.name = settings.name;
    this.delivery = settings.delivery;
  }

  async stop(): Promise<void> {
    await this.disconnect();
  }

  deliver(event: AuditEvent): Promise<void> {
    return this.deliverBatch([event]);
  }

  async deliverBatch(events: AuditEvent[]): Promise<void> {
    const producer = await this.connect();
    try {
      await producer.send({
        topic: this.settings.topic,
        acks: -1,
        messages: events.map((e) => ({ key: e.correlationId, value: eventJson(e), headers: { 'svc-event-id': e.id } })),
      });
    } catch (err) {
      await this.disconnect();
      throw new Error(`log-stream ${this.settings.topic}: ${(err as Error).message}`);
    }
  }

  private connect(): Promise<Producer> {
    if (this.producer) return Promise.resolve(this.producer);
    this.connecting ??= (async () => {
      // Loaded on the first connect: only a deployment with a log-stream sink pays for kafkajs.
      const { Kafka, logLevel } = await import('kafkajs');
      const kafka = new Kafka({
        clientId: this.settings.clientId,
        brokers: this.settings.brokers,
        // The kernel's queue owns retrying; kafkajs only bridges a short blip.
        retry: { retries: 2, initialRetryTime: 100, maxRetryTime: 1_000 },
        connectionTimeout: 3_000,
        requestTimeout: 10_000,
        logLevel: logLevel.NOTHING,
      });
      askAnyBrokerWhenControllerUnknown(kafka);
      const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
      try {
        await producer.connect();
      } catch (err) {
        await producer.disconnect().catch(() => undefined);
        throw new Error(`log-stream brokers ${this.settings.brokers.join(',')} unreachable: ${(err as Error).message}`);
      }
      this.logger.info('audit log-stream connected', { sink: this.name, topic: this.settings.topic });
      this.producer = producer;
      return producer;
    })().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private async disconnect(): Promise<void> {
    const producer = this.producer;
    this.producer = undefined;
    await producer?.disconnect().catch(() => undefined);
  }
}
