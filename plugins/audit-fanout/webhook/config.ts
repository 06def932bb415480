import { Type } from '@sinclair/typebox';
import { defineConfig } from '../../../kernel/index.ts';
import { auditSinksLeaf, deliveryLeaves, deliveryProperties } from '../support/config.ts';
import { httpsUrlSetting } from '../../net-support/safe-url.ts';

// 64 POSTs in flight: under full load a delivery waits for the busy event loop as well as the receiver, and
// 16 (or 4) in flight could not keep up with a busy node (its queue filled); the kernel keeps the events of
// one request in order whatever the concurrency, and the pool opens only the connections it needs.
const DEFAULTS = { batchSize: 1, concurrency: 64 };

export const webhookConfig = defineConfig({
  audit: {
    sinks: auditSinksLeaf,
    webhook: {
      enabled: { doc: 'POST every audit event to a webhook (one sink named "webhook").', format: Boolean, default: false, env: 'SVC_AUDIT_WEBHOOK_ENABLED' },
      url: httpsUrlSetting('Receiver URL: https://, or http:// to a loopback host only.', 'SVC_AUDIT_WEBHOOK_URL'),
      secret: { doc: 'HMAC-SHA256 key of the X-Svc-Signature header; required when enabled.', format: String, default: '', env: 'SVC_AUDIT_WEBHOOK_SECRET', sensitive: true },
      timeoutMs: { doc: 'A delivery that has no answer after this long is retried.', format: 'nat', default: 10_000, env: 'SVC_AUDIT_WEBHOOK_TIMEOUT_MS' },
      ...deliveryLeaves('SVC_AUDIT_WEBHOOK', DEFAULTS),
    },
  },
});

/** An `audit.sinks` entry of kind webhook. */
export const webhookEntry = {
  url: Type.String(),
  secret: Type.String(),
  timeoutMs: Type.Integer({ minimum: 1, default: 10_000 }),
  ...deliveryProperties(DEFAULTS),
};
