import { createPortRef } from './port-ref.ts';

/** Structured logs go to stderr; stdout belongs to the stdout audit sink. Never pass secrets here. */
export interface Logger {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export const loggerPort = createPortRef<Logger>('logger');
