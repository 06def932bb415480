import type { ReplayOutcome } from './dead-letter-replay.ts';
import type { DeliveryResult } from './fanout.ts';
import type { SinkHealth } from './secondary-delivery.ts';

/** What the request loop tells the fan-out thread. */
export type ToFanoutThread =
  | { t: 'events'; texts: string[] }
  | { t: 'probe'; id: number }
  | { t: 'replay'; id: number; sink?: string }
  | { t: 'stop' };

/** What the fan-out thread tells the request loop. */
export type FromFanoutThread =
  | { t: 'ready'; sinks: ThreadSink[] }
  | { t: 'failed'; error: string }
  /**
   * Sent at most every REPORT_INTERVAL_MS while something changed: counts since the last report, depths and queue
   * health now.
   */
  | {
      t: 'report';
      counts: Array<[sink: string, result: DeliveryResult, events: number]>;
      depths: Array<[string, number]>;
      health: SinkHealth;
    }
  | { t: 'probed'; id: number; checks: SinkHealth }
  | { t: 'replayed'; id: number; outcomes?: ReplayOutcome[]; error?: string }
  | { t: 'stopped' };

export const REPORT_INTERVAL_MS = 100;

/**
 * The workerData field holding how many `events` batches the thread has taken into its queues: a
 * BigInt64Array on a SharedArrayBuffer, counted up in the thread as it takes each batch, before any of
 * its events is sent. The request loop reads it without a message, and so still knows it exactly when
 * the thread dies in the middle of a delivery: a batch that killed its thread is never handed to the next.
 */
export const TAKEN_COUNTER = 'fanoutTaken';

/** A sink of the thread, as the request loop needs to know it: for metrics, readiness and its own dead letters. */
export interface ThreadSink {
  name: string;
  deadLetterFile: string;
  queueCapacity: number;
}
