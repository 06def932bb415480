import { Type } from '@sinclair/typebox';
import { defineConfig } from '../../../kernel/index.ts';
import { auditSinksLeaf, deliveryLeaves, deliveryProperties } from '../support/config.ts';
import { httpsUrlSetting } from '../../net-support/safe-url.ts';

// 256 POSTs in flight, four on each of 64 connections. Under full load a delivery waits for the busy event
// loop as well as the receiver: 64 in flight one at a time on 64 connections dead-lettered 12-15% of the
// events at a node's full encrypt rate, 64 on 16 connections four deep kept up (the node reads several
// answers with one read). Four deep on 64 connections keeps that and gives a receiver that answers
// pipelined POSTs one after another (as Node's http server does) as many connections as before.
// The kernel keeps the events of one request in order whatever the concurrency, and the pool opens only
// the connections it needs.
const DEFAULTS = { batchSize: 1, concurrency: 256 };
const PIPELINING = 4;

export const webhookConfig = defineConfig({
  audit: {
    sinks: auditSinksLeaf,
    webhook: {
      enabled: { doc: 'POST every audit event to a webhook (one sink named "webhook").', format: Boolean, default: false, env: 'SVC_AUDIT_WEBHOOK_ENABLED' },
      url: httpsUrlSetting('Receiver URL: https://, or http:// to a loopback host only.', 'SVC_AUDIT_WEBHOOK_URL'),
      secret: { doc: 'HMAC-SHA256 key of the X-Svc-Signature header; required when enabled.', format: String, default: '', env: 'SVC_AUDIT_WEBHOOK_SECRET', sensitive: true },
      timeoutMs: { doc: 'A delivery that has no answer after this long is retried.', format: 'nat', default: 10_000, env: 'SVC_AUDIT_WEBHOOK_TIMEOUT_MS' },
      pipelining: { doc: 'POSTs sent on one connection before their answers come (HTTP/1.1 pipelining; the receiver answers them in order, as HTTP/1.1 requires); 1: one at a time.', format: 'nat', default: PIPELINING, env: 'SVC_AUDIT_WEBHOOK_PIPELINING' },
      ...deliveryLeaves('SVC_AUDIT_WEBHOOK', DEFAULTS),
    },
  },
});

/** An `audit.sinks` entry of kind webhook. */
export const webhookEntry = {
  url: Type.String(),
  secret: Type.String(),
  timeoutMs: Type.Integer({ minimum: 1, default: 10_000 }),
  pipelining: Type.Integer({ minimum: 1, default: PIPELINING }),
  ...deliveryProperties(DEFAULTS),
};
