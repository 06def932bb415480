import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, JSONRPCRequest, RequestId } from '@modelcontextprotocol/sdk/types.js';

/** The requests of one HTTP POST, waiting for their answers (in the order they were sent). */
interface Exchange {
  readonly answers: JSONRPCMessage[];
  waiting: number;
  readonly done: (answers: JSONRPCMessage[]) => void;
}

interface Pending<C> {
  readonly exchange: Exchange;
  readonly index: number;
  readonly originalId: RequestId;
  readonly caller: C;
}

const isAnswer = (m: JSONRPCMessage): m is JSONRPCMessage & { id: RequestId } => !('method' in m) && 'id' in m;

/**
 * A transport that lets ONE long-lived SDK server answer every request the door hands it (all but tools/call). Building
 * a server
 * and the SDK's HTTP transport per request (as its stateless mode does) cost more CPU than the operation
 * itself: web Request/Response conversion, streams, abort signals and their garbage on every call.
 *
 * Each request of a POST gets an id of the door's own before the server sees it, so two callers who both
 * send id 1 at once never meet, and a caller cannot name another's request (the server is never handed a
 * client's notifications, such as notifications/cancelled, for the same reason). The answer is mapped back
 * to the caller's id; a POST is answered once all its requests are.
 */
export class ExchangeTransport<C> implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;

  private nextId = 0;
  private readonly pending = new Map<number, Pending<C>>();

  async start(): Promise<void> {}

  async close(): Promise<void> {
    this.pending.clear();
    this.onclose?.();
  }

  /** Hands the requests to the server on behalf of `caller`; resolves with their answers, in order. */
  dispatch(requests: readonly JSONRPCRequest[], caller: C): Promise<JSONRPCMessage[]> {
    return new Promise((resolve) => {
      const exchange: Exchange = {
        answers: new Array<JSONRPCMessage>(requests.length),
        waiting: requests.length,
        done: resolve,
      };
      const internal = requests.map((request, index) => {
        const id = this.nextId++;
        this.pending.set(id, { exchange, index, originalId: request.id, caller });
        return { ...request, id };
      });
      for (const message of internal) this.onmessage?.(message);
    });
  }

  /** Who sent the request the server knows by this id (for its handlers, through `extra.requestId`). */
  callerOf(requestId: RequestId): C | undefined {
    return typeof requestId === 'number' ? this.pending.get(requestId)?.caller : undefined;
  }

  async send(message: JSONRPCMessage): Promise<void> {
    // Stateless: a notification or request of the server's own has no stream to go on (the SDK's JSON mode drops them
    // too).
    if (!isAnswer(message) || typeof message.id !== 'number') return;
    const entry = this.pending.get(message.id);
    if (!entry) return;
    this.pending.delete(message.id);
    const { exchange } = entry;
    exchange.answers[entry.index] = { ...message, id: entry.originalId } as JSONRPCMessage;
    if (--exchange.waiting === 0) exchange.done(exchange.answers);
  }
}
