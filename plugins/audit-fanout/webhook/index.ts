import { auditFanoutPort, type ConfigValues, definePlugin, KERNEL_API_VERSION } from '../../../kernel/index.ts';
import type { BaseConfig } from '../../../config/schema.ts';
import { requireSafeUrl } from '../../net-support/safe-url.ts';
import { deliveryOf, sinkInstances } from '../support/config.ts';
import { webhookConfig, webhookEntry } from './config.ts';
import { WebhookSink, type WebhookSettings } from './webhook-sink.ts';

type Config = BaseConfig & ConfigValues<typeof webhookConfig>;

export default definePlugin({
  id: 'audit-webhook',
  apiVersion: KERNEL_API_VERSION,
  provides: auditFanoutPort,
  kind: 'webhook',
  description: 'POSTs each audit event, HMAC-signed, to an HTTPS receiver',
  config: webhookConfig,
  instances: (all: Config) => {
    const { enabled, ...env } = all.audit.webhook;
    return sinkInstances('webhook', all, { prefix: 'SVC_AUDIT_WEBHOOK', entry: enabled ? env : undefined }, webhookEntry, (entry, where): WebhookSettings => {
      if (!entry.url || !entry.secret) throw new Error(`${where} (webhook sink): url and secret are required`);
      requireSafeUrl(`${where} (webhook sink)`, entry.url);
      return { name: entry.name, url: entry.url, secret: entry.secret, timeoutMs: entry.timeoutMs, pipelining: Math.max(1, entry.pipelining), delivery: deliveryOf(entry, entry.name, all.node.dataDir) };
    });
  },
  create: ({ config }) => new WebhookSink(config),
});
