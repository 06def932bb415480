import { Type } from '@sinclair/typebox';
import { defineSettings } from '../../../kernel/index.ts';
import { outboundUrlSetting } from '../../net-support/safe-url.ts';
import { auditSinks, deliverySettings, inEntries } from '../support/config.ts';

// 256 POSTs in flight, four on each of 64 connections. Under full load a delivery waits for the busy event
// loop as well as the receiver: 64 in flight one at a time on 64 connections dead-lettered 12-15% of the
// events at a node's full encrypt rate, 64 on 16 connections four deep kept up (the node reads several
// answers with one read). Four deep on 64 connections keeps that and gives a receiver that answers
// pipelined POSTs one after another (as Node's http server does) as many connections as before.
// The kernel keeps the events of one request in order whatever the concurrency, and the pool opens only
// the connections it needs.
const DEFAULTS = { batchSize: 1, concurrency: 256 };
const PIPELINING = 4;

/** The sink of the SVC_AUDIT_WEBHOOK_* variables; an `audit.sinks` entry of kind webhook has the same settings. */
export const webhookSection = Type.Object({
  enabled: Type.Boolean({
    description: 'POST every audit event to a webhook (one sink named "webhook").',
    default: false,
  }),
  url: inEntries('required', outboundUrlSetting('Receiver URL: https://, or http:// to a loopback host only.')),
  secret: inEntries(
    'required',
    Type.String({
      description: 'HMAC-SHA256 key of the X-Svc-Signature header; required when enabled.',
      default: '',
      sensitive: true,
    }),
  ),
  timeoutMs: inEntries(
    { minimum: 1 },
    Type.Integer({
      minimum: 0,
      description: 'A delivery that has no answer after this long is retried.',
      default: 10_000,
    }),
  ),
  pipelining: inEntries(
    { minimum: 1 },
    Type.Integer({
      minimum: 0,
      description:
        'POSTs sent on one connection before their answers come (HTTP/1.1 ' +
        'pipelining; the receiver answers them in order, as HTTP/1.1 requires); ' +
        '1: one at a time.',
      default: PIPELINING,
    }),
  ),
  ...deliverySettings(DEFAULTS),
});

export const webhookSettings = defineSettings(
  Type.Object({ audit: Type.Object({ sinks: auditSinks, webhook: webhookSection }) }),
);
