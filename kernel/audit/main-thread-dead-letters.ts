import type { Logger } from '../ports/logger.ts';
import { writeDeadLetters } from './dead-letter-append.ts';
import { deadLetterLine, type FanoutObserver } from './fanout.ts';
import type { ThreadSink } from './fanout-thread-messages.ts';

/**
 * The dead letters the request loop writes itself while the sinks run on the fan-out thread (shutdown,
 * a thread that is behind): one file per sink as the thread's queues write them, same lines. The events
 * of one event-loop turn go in one append per sink, so a burst of them costs the loop little.
 */
export class MainThreadDeadLetters {
  private waiting: Array<{ text: string; error: string }> = [];
  private scheduled = false;
  private writes: Promise<void> = Promise.resolve();

  constructor(
    private readonly sinks: ThreadSink[],
    private readonly logger: Logger,
    private readonly observer: FanoutObserver,
  ) {}

  add(text: string, error: string): void {
    this.waiting.push({ text, error });
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  /** Resolves once everything added so far is written (or its loss logged). */
  flushed(): Promise<void> {
    this.flush();
    return this.writes;
  }

  private flush(): void {
    this.scheduled = false;
    if (this.waiting.length === 0) return;
    const events = this.waiting;
    this.waiting = [];
    const failedAt = new Date().toISOString();
    for (const sink of this.sinks) {
      this.observer.counted(sink.name, 'dead_lettered', events.length);
      const lines = events.map((e) => deadLetterLine(e.text, sink.name, e.error, 0, failedAt));
      this.writes = this.writes.then(() => writeDeadLetters(sink.deadLetterFile, lines, sink.name, this.logger));
    }
  }
}
