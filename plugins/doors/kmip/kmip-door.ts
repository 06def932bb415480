import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer, type Server, type TLSSocket } from 'node:tls';
import {
  isRequestId,
  ListenerConnections,
  SvcError,
  TLS12_CIPHERS,
  type Clock,
  type Door,
  type Logger,
  type OperationRunner,
  type Principal,
} from '../../../kernel/index.ts';
import { clientPrincipal } from './client-principal.ts';
import type { KmipSettings } from './config.ts';
import { ConnectionGate } from './connection-gate.ts';
import {
  encodeResponse,
  InvalidMessage,
  invalidMessageResponse,
  isSupported,
  parseRequest,
  type BatchItemResponse,
  type RequestMessage,
} from './messages.ts';
import { kmipOperations, OPERATION_NAMES } from './operations/index.ts';
import type { KmipCall } from './operations/adapter.ts';
import { failureOf } from './result-reasons.ts';
import { Framer, K, TtlvError } from './ttlv/index.ts';

/** A connection that sends nothing for this long is closed (a half-sent message included). */
const IDLE_MS = 120_000;
/** Whole messages read ahead of the one being answered; past it the door stops reading that connection. */
const MAX_QUEUED = 4;
/**
 * A message whose header has arrived must be complete this long after: a client that trickles a large
 * message (up to 1 MiB held per connection) cannot keep that memory for the idle timeout over and over.
 */
const MESSAGE_MS = 30_000;

/** Resolves once the socket has handed everything it buffered to the network, or has closed. */
function sent(socket: TLSSocket): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      socket.off('drain', done).off('close', done);
      resolve();
    };
    socket.on('drain', done).on('close', done);
  });
}

/**
 * The KMIP door: binary TTLV over mutual TLS on its own port. Each connection's client certificate (which
 * must chain to kmip.tls.clientCaFile, or the handshake fails) names a Service principal; each batch item
 * is translated onto registered operations and run through the one pipeline with door `kmip`. Connections
 * are independent: one client's malformed or slow messages never delay another's.
 */
export class KmipDoor implements Door {
  readonly name = 'kmip';
  private server: Server | undefined;
  private readonly connections = new ListenerConnections();
  private readonly operations = kmipOperations('svc-kms');
  private readonly gate: ConnectionGate;

  constructor(
    private readonly settings: KmipSettings,
    private readonly runner: OperationRunner,
    private readonly logger: Logger,
    private readonly clock: Clock,
  ) {
    this.gate = new ConnectionGate(settings);
  }

  /** Where the listener is bound (port 0 picks one). */
  address(): AddressInfo | undefined {
    return (this.server?.address() as AddressInfo | null) ?? undefined;
  }

  async start(): Promise<void> {
    const server = createServer(
      {
        cert: readFileSync(this.settings.certFile),
        key: readFileSync(this.settings.keyFile),
        ca: readFileSync(this.settings.clientCaFile),
        requestCert: true,
        rejectUnauthorized: true,
        minVersion: 'TLSv1.2',
        ciphers: TLS12_CIPHERS,
        honorCipherOrder: true,
        // The gate's deadline is the one that counts (absolute, from the accept); Node's is idle-based.
        handshakeTimeout: this.settings.handshakeTimeoutMs,
      },
      (socket) => {
        // Past kmip.maxConnections a certified client is closed; handshakes never took its place (connection-gate.ts).
        if (this.gate.secured(socket)) this.serve(socket);
        else socket.destroy();
      },
    );
    // No server.maxConnections: it counts TCP connections before their handshake too, so idle ones shut certified
    // clients out.
    server.on('connection', (raw) => this.gate.accepted(raw));
    // A refused handshake (no or foreign client certificate, or its deadline passed) concerns that client only.
    server.on('tlsClientError', () => undefined);
    await new Promise<void>((resolve, reject) =>
      server.once('error', reject).listen(this.settings.port, this.settings.host, () => resolve()),
    );
    server.on('error', (err) => this.logger.error('kmip: listener error', { error: err.message }));
    this.server = server;
    this.logger.info('kmip: listening', { host: this.settings.host, port: this.address()?.port });
  }

  /** Stops accepting, answers the messages in flight, then closes the connections still open. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    const closing = this.connections.close(server);
    // Connections still in their handshake have asked nothing: they need not hold the close until their deadline.
    this.gate.closePending();
    await closing;
  }

  private serve(socket: TLSSocket): void {
    this.connections.track(socket);
    socket.setTimeout(IDLE_MS, () => socket.destroy());
    const principal = clientPrincipal(socket.getPeerCertificate());
    const framer = new Framer();
    const queue: Buffer[] = [];
    let busy = false;
    let partial: NodeJS.Timeout | undefined;
    socket.on('close', () => clearTimeout(partial));
    const drain = async () => {
      busy = true;
      while (queue.length && !socket.destroyed) {
        const reply = this.answer(queue.shift()!, principal, socket.remoteAddress);
        this.connections.answering(reply);
        const bytes = await reply;
        // A client that does not read its answers must not make the door hold them: the next request runs
        // once this answer has left for the network (or the connection is gone).
        if (socket.writable && !socket.write(bytes)) await sent(socket);
      }
      busy = false;
      if (!socket.destroyed) socket.resume();
    };
    socket.on('data', (chunk: Buffer) => {
      let frames: Buffer[];
      try {
        frames = framer.push(chunk);
      } catch {
        // The stream cannot be framed any more (not a structure, over-size): nothing can be answered.
        socket.destroy();
        return;
      }
      queue.push(...frames);
      // The clock runs from the first byte of a message not yet complete.
      if (frames.length || framer.pending === 0) {
        clearTimeout(partial);
        partial = undefined;
      }
      if (framer.pending > 0) partial ??= setTimeout(() => socket.destroy(), MESSAGE_MS);
      if (queue.length > MAX_QUEUED) socket.pause();
      if (!busy && queue.length) void drain();
    });
  }

  /** The response to one framed message; never throws. */
  private async answer(
    frame: Buffer,
    principal: Principal | { refused: string },
    sourceIp: string | undefined,
  ): Promise<Buffer> {
    let request: RequestMessage;
    try {
      request = parseRequest(frame);
    } catch (err) {
      const reason =
        err instanceof TtlvError || err instanceof InvalidMessage
          ? err
          : new TtlvError('the message could not be read');
      return invalidMessageResponse(reason, this.clock.now());
    }
    const results: BatchItemResponse[] = [];
    let placeholder: string | undefined;
    for (const item of request.items) {
      const base = { operation: item.operation, ...(item.batchItemId ? { batchItemId: item.batchItemId } : {}) };
      const failed = (reason: number, message: string) => results.push({ ...base, failure: { reason, message } });
      if (!isSupported(request.version)) {
        failed(
          K.ResultReason.UnsupportedProtocolVersion,
          `protocol version ${request.version.major}.${request.version.minor} is not served; 1.0-1.4 and 2.0 are`,
        );
        continue;
      }
      if ('refused' in principal) {
        failed(K.ResultReason.AuthenticationNotSuccessful, principal.refused);
        continue;
      }
      const adapter = this.operations.get(item.operation);
      if (!adapter) {
        failed(
          K.ResultReason.OperationNotSupported,
          `operation ${OPERATION_NAMES[item.operation] ?? item.operation} is not served`,
        );
        if (!request.continueOnError) break;
        continue;
      }
      const call = this.call(request, item.operation, principal, sourceIp, placeholder);
      try {
        const answer = await adapter(item.payload, call);
        results.push({ ...base, payload: answer.payload });
        placeholder = answer.uid ?? placeholder;
      } catch (err) {
        const { reason, message } = failureOf(err);
        if (!(err instanceof SvcError) && reason === K.ResultReason.GeneralFailure)
          this.logger.error('kmip: unexpected failure', {
            operation: OPERATION_NAMES[item.operation],
            error: (err as Error).message,
          });
        failed(reason, message);
        if (!request.continueOnError) break;
      }
    }
    try {
      return encodeResponse(request.version, results, this.clock.now());
    } catch (err) {
      this.logger.error('kmip: could not encode a response', { error: (err as Error).message });
      return encodeResponse(
        request.version,
        [{ failure: { reason: K.ResultReason.GeneralFailure, message: 'the response could not be encoded' } }],
        this.clock.now(),
      );
    }
  }

  private call(
    request: RequestMessage,
    operation: number,
    principal: Principal,
    sourceIp: string | undefined,
    placeholder: string | undefined,
  ): KmipCall {
    // KMIP 1.4's Client Correlation Value is the client's id for its request, as X-Request-Id is over REST:
    // kept under the same rule as the audit record's correlation id, so a client can find its calls there.
    const requestId =
      request.correlation !== undefined && isRequestId(request.correlation)
        ? request.correlation
        : `kmip-${randomUUID()}`;
    const context = {
      'kmip.operation': OPERATION_NAMES[operation] ?? String(operation),
      'kmip.version': `${request.version.major}.${request.version.minor}`,
    };
    const caller = { principal, requestId, door: this.name, context, ...(sourceIp ? { sourceIp } : {}) };
    return {
      version: request.version,
      v2: request.version.major >= 2,
      placeholder,
      run: async <R>(operationId: string, input: Record<string, unknown>, rejected?: SvcError) =>
        (await this.runner.run(operationId, input, caller, rejected)) as R,
    };
  }
}
