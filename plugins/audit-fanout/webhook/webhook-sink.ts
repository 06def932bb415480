import { createHmac } from 'node:crypto';
import { PermanentDeliveryError, type DeliverySettings } from '../../../kernel/audit/fanout.ts';
import type { AuditEvent } from '../../../kernel/audit/canonical-event.ts';
import type { AuditFanoutSink } from '../../../kernel/ports/audit-sink.ts';

export interface WebhookSettings {
  name: string;
  url: string;
  secret: string;
  timeoutMs: number;
  delivery: DeliverySettings;
}

/**
 * POSTs one canonical event per request on the runtime's own HTTP client (fetch), signed with
 * `X-Svc-Signature: sha256=<hex HMAC-SHA256 of the raw body>`. 2xx acknowledges; 4xx (and a redirect,
 * which is never followed: signed audit goes only where the operator pointed it) is permanent and goes
 * to the dead letter; 5xx, timeouts and transport errors are retried by the kernel's queue.
 */
export class WebhookSink implements AuditFanoutSink {
  readonly name: string;
  readonly delivery: DeliverySettings;

  constructor(private readonly settings: WebhookSettings) {
    this.name = settings.name;
    this.delivery = settings.delivery;
  }

  async deliver(event: AuditEvent): Promise<void> {
    const body = JSON.stringify(event);
    const signature = createHmac('sha256', this.settings.secret).update(body).digest('hex');
    let response: Response;
    try {
      response = await fetch(this.settings.url, {
        method: 'POST',
        body,
        headers: { 'Content-Type': 'application/json', 'X-Svc-Event-Id': event.id, 'X-Svc-Signature': `sha256=${signature}` },
        redirect: 'manual',
        signal: AbortSignal.timeout(this.settings.timeoutMs),
      });
    } catch (err) {
      const cause = (err as Error & { cause?: Error }).cause?.message ?? (err as Error).message;
      throw new Error(`webhook ${this.host()} unreachable: ${cause}`);
    }
    // Read the answer to the end so the connection goes back to the pool.
    await response.arrayBuffer().catch(() => undefined);
    if (response.status >= 200 && response.status < 300) return;
    const what = `webhook ${this.host()} answered ${response.status}`;
    if (response.status < 500) throw new PermanentDeliveryError(what);
    throw new Error(what);
  }

  private host(): string {
    return new URL(this.settings.url).host;
  }
}
