import { appendFile } from 'node:fs/promises';

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
