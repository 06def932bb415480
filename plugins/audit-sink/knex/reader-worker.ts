import knexFactory from 'knex';
import { parentPort, workerData } from 'node:worker_threads';
import { SvcError } from '../../../kernel/index.ts';
import { readerSettings } from '../../sql-support/knex-recipe.ts';
import type { KnexRecipe } from '../../sql-support/recipe.ts';
import { unlessUnavailable } from '../../sql-support/unavailable.ts';
import { readerHandlers, type ReaderMessage, type ReaderReply } from './reader-handlers.ts';
import { lowerThisThreadsPriority } from './reader-priority.ts';

/**
 * The audit reader worker (started by reader-client.ts): its own connection to the audit database, made
 * from the sink's settings, answering one message per request. Everything it does (a synchronous SQLite
 * read, hashing 100,000 rows) happens on this thread, so the service's event loop goes on answering.
 */
const { recipe, niceness } = workerData as { recipe: KnexRecipe; niceness: number };
const settings = readerSettings(recipe);
const db = knexFactory(settings.config);
const port = parentPort!;
// A background reader: where this thread and the request path's share a core, the request path gets it first.
if (niceness > 0) lowerThisThreadsPriority(niceness);

async function answer(message: ReaderMessage): Promise<ReaderReply> {
  try {
    const handler = readerHandlers[message.kind as keyof typeof readerHandlers] as (
      db: unknown,
      args: unknown,
    ) => Promise<unknown>;
    if (!handler) throw new Error(`the audit reader has no request kind ${message.kind}`);
    // A lost connection is 503 on this side too, with the sink's own sentence (knex-audit-sink.ts).
    const value = await unlessUnavailable(`the audit database (${settings.describe})`, () => handler(db, message.args));
    return { id: message.id, value };
  } catch (err) {
    const e = err as Error;
    return {
      id: message.id,
      error:
        e instanceof SvcError
          ? { message: e.message, code: e.code, retryAfterSeconds: e.retryAfterSeconds }
          : { message: e.message },
    };
  }
}

port.on('message', (message: ReaderMessage) => {
  if (message.kind === 'close') {
    void db.destroy().finally(() => port.close());
    return;
  }
  void answer(message).then((reply) => port.postMessage(reply));
});
