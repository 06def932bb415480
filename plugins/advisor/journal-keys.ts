import type { KeyJournal as Journal, StoredEvent } from '../../kernel/index.ts';
import { yieldToRequests } from './audit-window.ts';

/** Keys a scan reads from the journal at most, oldest first. */
export const KEY_CAP = 10_000;
const CHUNK = 200;

/**
 * The events of the journal's first `cap` keys, read a chunk at a time with a pause for waiting requests
 * between chunks: on the embedded journal every read is synchronous, and ten thousand of them in one go
 * would hold the event loop for as long as they all take.
 */
export async function keysWithEvents(
  journal: Journal,
  cap = KEY_CAP,
): Promise<Array<{ keyId: string; events: StoredEvent[] }>> {
  const keyIds = (await journal.keyIds()).slice(0, cap);
  const keys: Array<{ keyId: string; events: StoredEvent[] }> = [];
  for (let i = 0; i < keyIds.length; i += CHUNK) {
    if (i > 0) await yieldToRequests();
    keys.push(
      ...(await Promise.all(
        keyIds.slice(i, i + CHUNK).map(async (keyId) => ({ keyId, events: await journal.load(keyId) })),
      )),
    );
  }
  return keys;
}
