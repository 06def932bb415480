import { appendFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../ports/logger.ts';

/** Bytes of whole lines per append: well under what one O_APPEND write() keeps whole. */
const CHUNK_BYTES = 64 * 1024;

/**
 * Appends dead-letter lines in appends of whole lines, each small enough to be one write() (a larger
 * append is written in parts). With the fan-out thread, the request loop and the thread may append to
 * the same file at once; a line cut in two by the other's write would be unreadable, and not replayed.
 */
export async function appendLines(file: string, lines: string[]): Promise<void> {
  let chunk = '';
  for (const line of lines) {
    if (chunk && chunk.length + line.length > CHUNK_BYTES) {
      await appendFile(file, chunk, { mode: 0o600 });
      chunk = '';
    }
    chunk += line;
  }
  if (chunk) await appendFile(file, chunk, { mode: 0o600 });
}

/**
 * Writes a sink's dead-letter lines to its file (the folder made owner-only if missing). Never throws:
 * a file that cannot be written is the one place an event can be lost, so it is said loudly instead.
 */
export async function writeDeadLetters(
  file: string,
  lines: string[],
  sink: string,
  logger: Pick<Logger, 'error'>,
): Promise<void> {
  try {
    await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    await appendLines(file, lines);
  } catch (err) {
    logger.error('audit dead-letter write failed: events lost', {
      sink,
      events: lines.length,
      error: (err as Error).message,
    });
  }
}
