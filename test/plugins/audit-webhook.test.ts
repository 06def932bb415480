import t from 'tap';
import { auditFanoutContract } from '../../contracts/audit-fanout.ts';
import { WebhookSink } from '../../plugins/audit-fanout/webhook/webhook-sink.ts';
import { tempDir } from '../helpers/service.ts';
import { webhookReceiver } from '../helpers/webhook-receiver.ts';

// The webhook sink runs the same conformance suite as every fan-out sink, against a real HTTP receiver.
auditFanoutContract(t, async () => {
  const rx = await webhookReceiver();
  t.teardown(() => rx.close());
  const delivery = {
    queueCapacity: 10,
    maxRetries: 0,
    initialBackoffMs: 1,
    maxBackoffMs: 1,
    deadLetterFile: `${tempDir()}/dl.jsonl`,
    batchSize: 1,
    concurrency: 1,
  };
  return {
    sink: new WebhookSink({
      name: 'webhook',
      url: rx.url,
      secret: 'contract-secret',
      timeoutMs: 2_000,
      pipelining: 4,
      delivery,
    }),
    delivered: async () => rx.accepted(),
    breakDestination: () => rx.down(),
  };
});
