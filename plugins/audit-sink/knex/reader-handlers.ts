import type { Knex } from 'knex';
import { verifyChains } from './chain-verification.ts';
import { queryAudit } from './audit-query.ts';

/**
 * What the audit reader worker answers: one handler per request kind, each given the worker's own read
 * connection and the request's arguments (plain data both ways, as worker messages are copied). A long
 * read added here runs off the request path's event loop; the sink asks for it with `reader.request`.
 */
export const readerHandlers = {
  verify: verifyChains,
  query: queryAudit,
} satisfies Record<string, (db: Knex, args: never) => Promise<unknown>>;

export type ReaderHandlers = typeof readerHandlers;
export type ReaderKind = keyof ReaderHandlers;
export type ReaderArgs<K extends ReaderKind> = Parameters<ReaderHandlers[K]>[1];
export type ReaderAnswer<K extends ReaderKind> = Awaited<ReturnType<ReaderHandlers[K]>>;

/** A request to the worker, and its answer: a value, or an error as plain data (an SvcError keeps its code). */
export interface ReaderMessage {
  id: number;
  kind: ReaderKind | 'close';
  args?: unknown;
}

export type ReaderReply =
  | { id: number; value: unknown }
  | { id: number; error: { message: string; code?: string; retryAfterSeconds?: number } };
