import { pino, type DestinationStream, type Logger as PinoLogger } from 'pino';
import type { Logger } from './ports/logger.ts';
import { redactLogFields, REDACTED_LOG_PATHS } from './log-redaction.ts';

/** The levels `log.level` accepts, from the most verbose; every line at or above the setting is written. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The process's logger: the Logger port plus what the composition root decides once the config is read. */
export interface ServiceLogger extends Logger {
  trace(msg: string, fields?: Record<string, unknown>): void;
  debug(msg: string, fields?: Record<string, unknown>): void;
  fatal(msg: string, fields?: Record<string, unknown>): void;
  /**
   * The configured level, and the node id and worker every later line names (the config is read after the logger
   * exists).
   */
  configure(settings: { level?: LogLevel; node?: string; worker?: string }): void;
  readonly level: LogLevel;
}

/** Whether a Logger handed in is the process's own (tests hand in plain recorders, which have no settings). */
export const isServiceLogger = (logger: Logger): logger is ServiceLogger =>
  typeof (logger as Partial<ServiceLogger>).configure === 'function';

/**
 * JSON lines on stderr (stdout belongs to the stdout audit sink and to commands' answers), one object a
 * line: `level` (its name), `time` (ISO 8601), `pid`, `hostname`, `node` (once the config names it),
 * `msg`, then the call's fields. Keys that hold credentials are censored in the first three levels
 * of the fields (`REDACTED_LOG_PATHS`), and a credential inside any text (a bearer token, a JWT, a URL's password or
 * token parameter) is cut out, so a careless `{ error: err.message }` cannot leak one either.
 * Written synchronously: the process may exit right after a line (a failed boot, a command's end).
 */
export function createServiceLogger(options: { level?: LogLevel; write?: (line: string) => void } = {}): ServiceLogger {
  const destination: DestinationStream = options.write
    ? { write: options.write }
    : pino.destination({ fd: 2, sync: true });
  const base: PinoLogger<never> = pino(
    {
      level: options.level ?? 'info',
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }), log: (fields) => redactLogFields(fields) },
      redact: { paths: REDACTED_LOG_PATHS, censor: '[Redacted]' },
      // redactLogFields has already reduced errors to name, message and code.
      serializers: { err: (value: unknown) => value },
    },
    destination,
  );
  // The message goes in as the first field of the line's object, so `msg` precedes the call's fields
  // (`"msg":"listening","protocol":"http",...`), as the service's lines always read; a field that is
  // itself called msg does not replace the message.
  const emit = (level: LogLevel) => (msg: string, fields?: Record<string, unknown>) =>
    base[level](Object.assign({ msg }, fields, { msg }));
  const logger: ServiceLogger = {
    trace: emit('trace'),
    debug: emit('debug'),
    info: emit('info'),
    warn: emit('warn'),
    error: emit('error'),
    fatal: emit('fatal'),
    configure({ level, node, worker }) {
      if (level !== undefined) base.level = level;
      if (node !== undefined) base.setBindings({ node });
      if (worker !== undefined) base.setBindings({ worker });
    },
    get level() {
      return base.level as LogLevel;
    },
  };
  return logger;
}

/** A logger at a fixed level (`error` and a no-op writer keep a test or a tool quiet). */
export function createStderrLogger(level: LogLevel = 'info', write?: (line: string) => void): ServiceLogger {
  return createServiceLogger({ level, ...(write ? { write } : {}) });
}
