import type { Logger } from './ports/logger.ts';

/** JSON lines on stderr; stdout is reserved for the stdout audit sink. */
export function createStderrLogger(level: 'info' | 'warn' | 'error' = 'info', write: (line: string) => void = (l) => process.stderr.write(l)): Logger {
  const rank = { info: 0, warn: 1, error: 2 };
  const emit = (lvl: 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>) => {
    if (rank[lvl] < rank[level]) return;
    write(`${JSON.stringify({ level: lvl, time: new Date().toISOString(), msg, ...fields })}\n`);
  };
  return {
    info: (msg, fields) => emit('info', msg, fields),
    warn: (msg, fields) => emit('warn', msg, fields),
    error: (msg, fields) => emit('error', msg, fields),
  };
}
