import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import {
  type AuditEvent,
  type AuditFanoutSink,
  type DeliverySettings,
  eventJson,
  PermanentDeliveryError,
} from '../../../kernel/index.ts';
import { KeepAlivePoster } from './http-post.ts';

export interface WebhookSettings {
  name: string;
  url: string;
  secret: string;
  timeoutMs: number;
  pipelining: number;
  delivery: DeliverySettings;
}

/**
 * POSTs one canonical event per request on a pool of kept-alive connections (http-post.ts), signed with
 * `X-Svc-Signature: sha256=<hex HMAC-SHA256 of the raw body>`. 2xx acknowledges; 4xx (and a redirect,
 * which is never followed: signed audit goes only where the operator pointed it) is permanent and goes
 * to the dead letter; 5xx, timeouts and transport errors are retried by the kernel's queue.
 */
export class WebhookSink implements AuditFanoutSink {
  readonly name: string;
  readonly delivery: DeliverySettings;
  private readonly poster: KeepAlivePoster;
  private readonly host: string;
  /** The secret as a KeyObject once, instead of a string copied into a new key for every event. */
  private readonly signingKey: KeyObject;

  constructor(private readonly settings: WebhookSettings) {
    this.name = settings.name;
    this.delivery = settings.delivery;
    const url = new URL(settings.url);
    this.host = url.host;
    this.signingKey = createSecretKey(Buffer.from(settings.secret, 'utf8'));
    this.poster = new KeepAlivePoster(url, settings.delivery.concurrency, settings.pipelining);
  }

  async stop(): Promise<void> {
    await this.poster.close();
  }

  async deliver(event: AuditEvent): Promise<void> {
    const body = eventJson(event);
    const signature = createHmac('sha256', this.signingKey).update(body).digest('hex');
    let status: number;
    try {
      status = await this.poster.post(
        body,
        { 'Content-Type': 'application/json', 'X-Svc-Event-Id': event.id, 'X-Svc-Signature': `sha256=${signature}` },
        this.settings.timeoutMs,
      );
    } catch (err) {
      throw new Error(`webhook ${this.host} unreachable: ${(err as Error).message}`);
    }
    if (status >= 200 && status < 300) return;
    const what = `webhook ${this.host} answered ${status}`;
    if (status < 500) throw new PermanentDeliveryError(what);
    throw new Error(what);
  }
}
