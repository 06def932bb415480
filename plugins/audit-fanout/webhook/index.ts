import { auditFanoutPort, definePlugin, KERNEL_API_VERSION } from '../../../kernel/index.ts';
import { requireSafeUrl } from '../../net-support/safe-url.ts';
import { deliveryOf, sinkInstances } from '../support/config.ts';
import { webhookSection, webhookSettings } from './config.ts';
import { WebhookSink, type WebhookSettings } from './webhook-sink.ts';

export default definePlugin({
  id: 'audit-webhook',
  apiVersion: KERNEL_API_VERSION,
  provides: auditFanoutPort,
  kind: 'webhook',
  description: 'POSTs each audit event, HMAC-signed, to an HTTPS receiver',
  settings: webhookSettings,
  instances: ({ audit }, { dataDir }) =>
    sinkInstances(
      'webhook',
      webhookSection,
      { section: audit.webhook, prefix: 'SVC_AUDIT_WEBHOOK', sinks: audit.sinks },
      (entry, where): WebhookSettings => {
        if (!entry.url || !entry.secret) throw new Error(`${where} (webhook sink): url and secret are required`);
        requireSafeUrl(`${where} (webhook sink)`, entry.url);
        return {
          name: entry.name,
          url: entry.url,
          secret: entry.secret,
          timeoutMs: entry.timeoutMs,
          pipelining: Math.max(1, entry.pipelining),
          delivery: deliveryOf(entry, entry.name, dataDir),
        };
      },
    ),
  create: ({ config }) => new WebhookSink(config),
});
