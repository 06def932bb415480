import type { AuditEvent } from './canonical-event.ts';

/**
 * The events a sink's queue holds, oldest first. Taking from the front moves a start index instead of
 * shifting the array (Array#splice at the front costs the whole queue's length, every take: with
 * thousands waiting, a sink that fell behind spent most of its time shifting and fell further behind);
 * the consumed front is cut off once it is as long as what is left, so a take costs O(1) amortised.
 */
export class WaitingEvents {
  // Slots before `head` are emptied as they are taken, so a delivered event is not kept alive until the next cut.
  private events: Array<AuditEvent | undefined> = [];
  private head = 0;

  get length(): number {
    return this.events.length - this.head;
  }

  push(event: AuditEvent): void {
    this.events.push(event);
  }

  /** The oldest `n` events, taken. */
  takeFront(n: number): AuditEvent[] {
    const taken = this.events.slice(this.head, this.head + n) as AuditEvent[];
    this.advanceTo(this.head + taken.length);
    return taken;
  }

  /** Everything left, taken. */
  takeAll(): AuditEvent[] {
    return this.takeFront(this.length);
  }

  /**
   * Up to `size` events, oldest first, among the first `scanLimit`, skipping those `isHeld` refuses and
   * every later event of a correlation once one of it was skipped (one request's events keep their order).
   * The skipped events stay at the front, in their order.
   */
  takeFree(size: number, scanLimit: number, isHeld: (correlationId: string) => boolean): AuditEvent[] {
    const taken: AuditEvent[] = [];
    let skipped: AuditEvent[] | undefined;
    let heldHere: Set<string> | undefined;
    const stop = Math.min(this.events.length, this.head + scanLimit);
    let end = this.head;
    for (; end < stop && taken.length < size; end++) {
      const event = this.events[end]!;
      const key = event.correlationId;
      if (!heldHere?.has(key) && !isHeld(key)) taken.push(event);
      else {
        (heldHere ??= new Set()).add(key);
        (skipped ??= []).push(event);
      }
    }
    if (taken.length === 0) return taken;
    // The skipped events move up to just before the first unscanned one, in their order; the front advances past the
    // taken.
    const kept = skipped?.length ?? 0;
    for (let i = 0; i < kept; i++) this.events[end - kept + i] = skipped![i]!;
    this.advanceTo(end - kept);
    return taken;
  }

  private advanceTo(head: number): void {
    this.events.fill(undefined, this.head, head);
    this.head = head;
    this.compact();
  }

  private compact(): void {
    if (this.head === this.events.length) {
      this.events = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 >= this.events.length) {
      this.events = this.events.slice(this.head);
      this.head = 0;
    }
  }
}
