import { createPortRef } from './port-ref.ts';

/** Time, injectable so that rotation schedules and detectors can be tested without waiting. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export const clockPort = createPortRef<Clock>('clock');
