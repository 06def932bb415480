import { createReadStream, existsSync } from 'node:fs';
import { appendFile, readdir, readFile, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { setAsideIfOthersCouldWrite } from '../files/owner-only.ts';
import type { Logger } from '../ports/logger.ts';
import type { AuditEvent } from './canonical-event.ts';
import type { FanoutQueue } from './fanout.ts';

export interface ReplayOutcome {
  sink: string;
  /** The sink's dead-letter file: what fails again is appended to it anew. */
  file: string;
  replayed: number;
  delivered: number;
  /** Failed again (retries exhausted, or an answer that retrying cannot help): back in the dead-letter file. */
  deadLettered: number;
  /** Lines that are not a dead-letter record; kept, unchanged, in `<file>.unreadable`. */
  unreadable: number;
  /** Files other users could have written: moved aside to these names, not replayed. */
  untrusted: string[];
}

/**
 * Offers every event of a sink's dead-letter file to that sink's queue again, so it is delivered with the
 * sink's own retries, backoff and signing, exactly as the first time (same event, same id: receivers
 * deduplicate on it). The file is first renamed to `<file>.replaying-<time>`, so a running service that
 * dead-letters meanwhile starts a fresh file and nothing is read twice or missed; the renamed file is
 * deleted only once each of its events was delivered or dead-lettered again. A replay that was cut short
 * leaves its renamed file behind, and the next replay takes it up first. A file (or leftover) that other
 * users could write is moved aside unread and named in the outcome's `untrusted`.
 */
export async function replayDeadLetters(queue: FanoutQueue, logger: Pick<Logger, 'warn'>): Promise<ReplayOutcome> {
  const file = queue.deadLetterFile;
  const outcome: ReplayOutcome = {
    sink: queue.name,
    file,
    replayed: 0,
    delivered: 0,
    deadLettered: 0,
    unreadable: 0,
    untrusted: [...queue.setAside],
  };
  // A replay signs what it reads: lines that another user could have put in a file are never replayed.
  const aside = (f: string) => {
    const moved = setAsideIfOthersCouldWrite(f, 'audit dead-letter file', logger);
    if (moved) outcome.untrusted.push(moved);
    return !moved;
  };
  if (existsSync(file) && aside(file)) await rename(file, `${file}.replaying-${Date.now()}`);
  const ids = new Set<string>();
  for (const taken of (await leftovers(file)).filter(aside)) {
    await offerAll(queue, taken, ids, outcome);
    await queue.settled();
    await unlink(taken);
  }
  outcome.replayed = ids.size;
  outcome.deadLettered = await countFailedAgain(file, ids);
  outcome.delivered = outcome.replayed - outcome.deadLettered;
  return outcome;
}

/** This sink's renamed files, oldest first (a cut-short replay's before this one's). */
async function leftovers(file: string): Promise<string[]> {
  const prefix = `${path.basename(file)}.replaying-`;
  const names = existsSync(path.dirname(file)) ? await readdir(path.dirname(file)) : [];
  return names
    .filter((n) => n.startsWith(prefix) && /^\d+$/.test(n.slice(prefix.length)))
    .sort((a, b) => Number(a.slice(prefix.length)) - Number(b.slice(prefix.length)))
    .map((n) => path.join(path.dirname(file), n));
}

/** Offers the file's events a queue-full at a time, waiting for each lot to settle: never overflows. */
async function offerAll(queue: FanoutQueue, taken: string, ids: Set<string>, outcome: ReplayOutcome): Promise<void> {
  const lines = createInterface({ input: createReadStream(taken, 'utf8'), crlfDelay: Infinity });
  let offered = 0;
  for await (const line of lines) {
    if (!line.trim()) continue;
    const event = parse(line);
    if (!event) {
      outcome.unreadable++;
      await appendFile(`${queue.deadLetterFile}.unreadable`, `${line}\n`, { mode: 0o600 });
      continue;
    }
    if (ids.has(event.id)) continue; // dead-lettered twice (a cut-short replay): deliver it once
    ids.add(event.id);
    queue.offer(event);
    if (++offered % queue.capacity === 0) await queue.settled();
  }
}

function parse(line: string): AuditEvent | undefined {
  try {
    const event = (JSON.parse(line) as { event?: AuditEvent }).event;
    return event && typeof event === 'object' && typeof event.id === 'string' ? event : undefined;
  } catch {
    return undefined;
  }
}

async function countFailedAgain(file: string, ids: Set<string>): Promise<number> {
  if (!existsSync(file)) return 0;
  const failed = new Set<string>();
  for (const line of (await readFile(file, 'utf8')).split('\n')) {
    const id = line.trim() ? parse(line)?.id : undefined;
    if (id && ids.has(id)) failed.add(id);
  }
  return failed.size;
}
