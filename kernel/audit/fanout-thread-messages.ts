import type { ReplayOutcome } from './dead-letter-replay.ts';
import type { SinkHealth } from './secondary-delivery.ts';

/** What the request loop tells the fan-out thread. */
export type ToFanoutThread =
  | { t: 'events'; texts: string[] }
  | { t: 'probe'; id: number }
  | { t: 'replay'; id: number; sink?: string }
  | { t: 'stop' };

/** What the fan-out thread tells the request loop. */
export type FromFanoutThread =
  | { t: 'ready'; sinks: Array<{ name: string; deadLetterFile: string }> }
  | { t: 'failed'; error: string }
  /** Sent at most every REPORT_INTERVAL_MS while something changed: counts since the last report, depths and queue health now. */
  | { t: 'report'; counts: Array<[sink: string, result: string, events: number]>; depths: Array<[string, number]>; health: SinkHealth }
  | { t: 'probed'; id: number; checks: SinkHealth }
  | { t: 'replayed'; id: number; outcomes?: ReplayOutcome[]; error?: string }
  | { t: 'stopped' };

export const REPORT_INTERVAL_MS = 100;
