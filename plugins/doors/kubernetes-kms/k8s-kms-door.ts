import { fileURLToPath } from 'node:url';
import type { sendUnaryData, Server, ServerUnaryCall } from '@grpc/grpc-js';
import { type Door, type Logger, type OperationRunner, SvcError } from '../../../kernel/index.ts';
import type { K8sKmsConfig } from './config.ts';
import { GRPC, grpcFailureOf } from './grpc-status.ts';
import { K8sKmsCalls, requestIdOf } from './k8s-calls.ts';
import { type PlacedSocket, placeSocket } from './socket-file.ts';

/** The service definition kube-apiserver calls (package v2), beside this module in the sources and in the build. */
const PROTO = fileURLToPath(new URL('./proto/api.proto', import.meta.url));
/**
 * Largest message the plugin decodes: a Decrypt carries at most a 1 kB ciphertext, a 1 kB key_id and 32 kB of
 * annotations. A longer one is refused (RESOURCE_EXHAUSTED) and recorded like any refused call.
 */
const MAX_MESSAGE_BYTES = 64 * 1024;
/** Largest message gRPC reads at all: a longer one it refuses itself, before the plugin sees it (no record). */
const MAX_RECEIVED_BYTES = 1024 * 1024;
/** Calls at once on one connection (kube-apiserver has one connection and makes a few calls at a time). */
const MAX_CONCURRENT_STREAMS = 64;
/** How long stop lets the calls in flight finish before it closes every connection. */
const SHUTDOWN_GRACE_MS = 5_000;

type Handler = (call: ServerUnaryCall<Buffer, unknown>, callback: sendUnaryData<unknown>) => void;
type Decode = (bytes: Buffer) => Record<string, unknown>;
type MethodDefinition = { requestDeserialize: Decode } & Record<string, unknown>;

/**
 * The Kubernetes KMS v2 plugin: `v2.KeyManagementService` over gRPC on a Unix socket (mode 0600), through which
 * kube-apiserver encrypts the data keys of the resources its EncryptionConfiguration names (Secrets). Each call runs
 * service operations as the configured Service principal with door `k8s` (k8s-calls.ts); this class serves the
 * socket and answers each call, or its refusal as a gRPC status, and never lets a call throw into gRPC.
 */
export class K8sKmsDoor implements Door {
  readonly name = 'k8s';
  private server: Server | undefined;
  private socket: PlacedSocket | undefined;
  private stopping = false;
  private readonly calls: K8sKmsCalls;

  constructor(
    private readonly config: K8sKmsConfig,
    runner: OperationRunner,
    private readonly logger: Logger,
  ) {
    this.calls = new K8sKmsCalls(runner, config, this.name);
  }

  async start(): Promise<void> {
    // Loaded here, not with the manifest: a deployment without k8s.socket never loads gRPC.
    const grpc = await import('@grpc/grpc-js');
    const protoLoader = await import('@grpc/proto-loader');
    const definition = protoLoader.loadSync(PROTO, { keepCase: true, longs: String, enums: String, defaults: true });
    const v2 = grpc.loadPackageDefinition(definition).v2 as Record<string, { service: never }>;
    const server = new grpc.Server({
      'grpc.max_receive_message_length': MAX_RECEIVED_BYTES,
      'grpc.max_concurrent_streams': MAX_CONCURRENT_STREAMS,
    });
    // The handlers take each message's bytes and decode them themselves, so a message too long or not protobuf
    // is refused through the pipeline (and recorded) rather than by gRPC before the plugin sees it.
    const methods = v2.KeyManagementService!.service as unknown as Record<string, MethodDefinition>;
    const raw = Object.fromEntries(
      Object.entries(methods).map(([name, method]) => [name, { ...method, requestDeserialize: (b: Buffer) => b }]),
    );
    const decode = (name: string) => methods[name]!.requestDeserialize;
    server.addService(raw as never, {
      Status: this.unary('Status', decode('Status'), (_request, requestId) => this.calls.status(requestId)),
      Encrypt: this.unary('Encrypt', decode('Encrypt'), (request, requestId) => this.calls.encrypt(request, requestId)),
      Decrypt: this.unary('Decrypt', decode('Decrypt'), (request, requestId) => this.calls.decrypt(request, requestId)),
    });
    try {
      this.socket = await placeSocket(this.config.socket, (staged) => bind(server, staged, grpc.ServerCredentials));
    } catch (err) {
      server.forceShutdown();
      throw err;
    }
    this.server = server;
    this.logger.info('k8s kms: listening', {
      socket: this.config.socket,
      keyId: this.config.keyId,
      principal: this.config.principal.subject,
    });
  }

  /**
   * Refuses new calls (UNAVAILABLE), lets the calls in flight answer for up to SHUTDOWN_GRACE_MS, then closes
   * every connection and removes the socket (when the path still holds this plugin's socket).
   */
  async stop(): Promise<void> {
    this.stopping = true;
    const server = this.server;
    this.server = undefined;
    if (server)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, SHUTDOWN_GRACE_MS);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    await this.socket?.remove();
    this.socket = undefined;
  }

  /** A gRPC handler around one call: its answer, or its failure as a gRPC status; it never throws. */
  private unary(
    method: 'Status' | 'Encrypt' | 'Decrypt',
    decode: Decode,
    run: (request: Record<string, unknown>, requestId: string) => Promise<unknown>,
  ): Handler {
    return (call, callback) => {
      if (this.stopping) {
        callback({ code: GRPC.UNAVAILABLE, details: 'svc-kms is stopping; the call was not run, retry' });
        return;
      }
      const bytes = call.request;
      let request: Record<string, unknown> | undefined;
      let refusal: SvcError | undefined;
      if (bytes.length > MAX_MESSAGE_BYTES)
        refusal = new SvcError('PayloadTooLarge', `the message is ${bytes.length} bytes; at most ${MAX_MESSAGE_BYTES}`);
      else
        try {
          request = decode(bytes) ?? {};
        } catch {
          refusal = new SvcError('BadRequest', `the ${method} message is not a ${method}Request (protobuf)`);
        }
      const requestId = requestIdOf(request?.uid);
      const answered = request ? run(request, requestId) : this.calls.refuse(method, requestId, refusal!);
      answered.then(
        (answer) => callback(null, answer),
        (err: unknown) => {
          const failure = grpcFailureOf(err, requestId);
          if (failure.code === GRPC.INTERNAL)
            this.logger.error('k8s kms: call failed', {
              method,
              requestId,
              error: (err as Error)?.stack ?? String(err),
            });
          callback(failure);
        },
      );
    };
  }
}

/** Binds `server` to the Unix socket `path` with no TLS (the socket's mode is the access control). */
function bind(
  server: Server,
  path: string,
  credentials: typeof import('@grpc/grpc-js').ServerCredentials,
): Promise<void> {
  return new Promise((resolve, reject) =>
    server.bindAsync(`unix:${path}`, credentials.createInsecure(), (err) => (err ? reject(err) : resolve())),
  );
}
