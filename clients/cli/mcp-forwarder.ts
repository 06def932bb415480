import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';

/**
 * JSON-RPC error codes `svc mcp` answers with itself, when the service gave no MCP answer (implementation-defined
 * range).
 */
export const FORWARDER_ERRORS = {
  /** The service could not be reached (connection refused, DNS, TLS, reset). */
  unreachable: -32010,
  /** The service answered the HTTP request with an error status (401 bad credential, 403, 404 /mcp off, 5xx). */
  refused: -32011,
  /** A line on stdin was not JSON (JSON-RPC's parse error). */
  notJson: -32700,
  /** A line on stdin was JSON but not one JSON-RPC 2.0 message (JSON-RPC's invalid request). */
  invalidMessage: -32600,
} as const;

/** The remote side: an MCP client transport that may also be told the negotiated protocol version. */
export interface RemoteTransport extends Transport {
  setProtocolVersion?(version: string): void;
}

/** What went wrong with one forwarded message, for the MCP client (JSON-RPC error) and the operator (stderr). */
export interface Failure {
  code: number;
  message: string;
  data?: Record<string, unknown>;
}

/**
 * Joins a local MCP transport (stdio, facing the MCP client) to a remote one (Streamable HTTP, facing the
 * service's /mcp) and passes every message through unchanged: the service, not this process, lists the
 * tools, decides every call and audits it. What it adds is only what the HTTP hop needs: the negotiated
 * protocol version on later requests, and a JSON-RPC error for a request the service never answered
 * (so the MCP client sees why instead of waiting for its own timeout).
 */
export class McpForwarder {
  private readonly initializeIds = new Set<RequestId>();
  private readonly inFlight = new Set<Promise<void>>();
  /** Errors already reported by the send that failed; the transport reports them through onerror as well. */
  private readonly reported = new WeakSet<object>();
  /** Set once the client has closed stdin: what the closing aborts (the optional GET stream) is no failure. */
  private closing = false;

  constructor(
    private readonly local: Transport,
    private readonly remote: RemoteTransport,
    private readonly describe: (err: unknown) => Failure,
    private readonly log: (line: string) => void,
  ) {}

  async start(): Promise<void> {
    this.local.onmessage = (message) => this.track(this.forward(message));
    this.local.onerror = (err) => this.badLine(err);
    this.remote.onmessage = (message) => this.track(this.answer(message));
    // The remote transport reports a failed POST here and then rejects the send: the send's handler says it
    // once. What reaches only this callback (the optional GET stream) is said here.
    this.remote.onerror = (err) =>
      setImmediate(() => {
        if (this.closing || (typeof err === 'object' && err !== null && this.reported.has(err))) return;
        this.log(this.describe(err).message);
      });
    await this.remote.start();
    await this.local.start();
  }

  /** Resolves once every message read so far has been forwarded and its answer written. */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  async close(): Promise<void> {
    await this.drain();
    this.closing = true;
    await this.remote.close();
    await this.local.close();
  }

  private track(work: Promise<void>): void {
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work));
  }

  private async forward(message: JSONRPCMessage): Promise<void> {
    const id = 'method' in message && 'id' in message ? message.id : undefined;
    if (id !== undefined && 'method' in message && message.method === 'initialize') this.initializeIds.add(id);
    try {
      await this.remote.send(message);
    } catch (err) {
      if (typeof err === 'object' && err !== null) this.reported.add(err);
      const failure = this.describe(err);
      this.log(failure.message);
      if (id !== undefined) {
        this.initializeIds.delete(id);
        await this.local.send({ jsonrpc: '2.0', id, error: failure });
      }
    }
  }

  private async answer(message: JSONRPCMessage): Promise<void> {
    if ('id' in message && message.id !== undefined && this.initializeIds.delete(message.id) && 'result' in message) {
      // Later POSTs carry MCP-Protocol-Version, as the HTTP transport requires once a version is agreed.
      const version = (message.result as { protocolVersion?: unknown }).protocolVersion;
      if (typeof version === 'string') this.remote.setProtocolVersion?.(version);
    }
    await this.local.send(message);
  }

  /** A line that is not JSON or not a JSON-RPC message has no id to answer: the error goes out with id null. */
  private badLine(err: unknown): void {
    const notJson = err instanceof SyntaxError;
    if (!notJson && (err as Error)?.name !== 'ZodError') {
      // Not one bad line: stdin itself failed, or a line grew past the stdio transport's buffer.
      this.log(`svc mcp: stdin: ${(err as Error)?.message ?? String(err)}`);
      return;
    }
    const message = `svc mcp: a line read from stdin was dropped: ${notJson ? 'it is not JSON' : 'it is not a JSON-RPC 2.0 message'}`;
    this.log(message);
    // JSON-RPC 2.0 answers a request it could not read with id null; the SDK's message type has no null id.
    this.track(
      this.local.send({
        jsonrpc: '2.0',
        id: null,
        error: { code: notJson ? FORWARDER_ERRORS.notJson : FORWARDER_ERRORS.invalidMessage, message },
      } as unknown as JSONRPCMessage),
    );
  }
}
