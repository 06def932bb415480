import { randomUUID } from 'node:crypto';
import { chmod, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { createInterface } from 'node:readline';
import {
  authenticate,
  isSvcError,
  ListenerConnections,
  type Authenticator,
  type Door,
  type Logger,
  type OperationRunner,
} from '../../kernel/index.ts';

const REQUEST_ID = /^[\x21-\x7e]{1,128}$/;

/**
 * A door of JSON lines on a Unix socket (mode 0600), for local tooling: each line is
 * `{"id": "...", "operation": "Sign", "input": {...}, "credential": {"X-Svc-User": "alice"}}` and each
 * answer `{"id", "result"}` or `{"id", "error", "message"}`. The credential holds the headers the
 * configured authenticator reads (X-Svc-User, or Authorization: Bearer ...).
 */
export class JsonlSocketDoor implements Door {
  readonly name = 'jsonl-socket';
  private server: Server | undefined;
  /**
   * The open connections and the answers being worked out: stop waits for these, so a call in flight at shutdown is
   * answered and audited.
   */
  private readonly connections = new ListenerConnections();

  constructor(
    private readonly path: string,
    private readonly authenticator: Authenticator,
    private readonly operations: OperationRunner,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    await rm(this.path, { force: true });
    const server = createServer((socket) => this.serve(socket));
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(this.path, resolve));
    await chmod(this.path, 0o600);
    this.server = server;
  }

  /** Stops accepting, answers the calls in flight, then closes the connections still open. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    await this.connections.close(server);
  }

  private serve(socket: Socket): void {
    this.connections.track(socket);
    createInterface({ input: socket, crlfDelay: Infinity }).on('line', (line) => {
      if (!this.server)
        return void socket.write(
          `${JSON.stringify({ error: 'ServiceUnavailable', message: 'the door is stopping' })}\n`,
        );
      const reply = this.answer(line).then((r) => socket.writable && socket.write(`${JSON.stringify(r)}\n`));
      this.connections.answering(reply);
    });
  }

  private async answer(line: string): Promise<Record<string, unknown>> {
    let id: string = randomUUID();
    try {
      const req = JSON.parse(line) as {
        id?: unknown;
        operation?: unknown;
        input?: unknown;
        credential?: Record<string, string>;
      };
      if (typeof req.id === 'string' && REQUEST_ID.test(req.id)) id = req.id;
      const credential = req.credential ?? {};
      const principal = await authenticate(this.authenticator, {
        header: (name) => Object.entries(credential).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1],
      });
      const result = await this.operations.run(String(req.operation), req.input ?? {}, {
        principal,
        requestId: id,
        door: this.name,
        sourceIp: 'unix',
      });
      return { id, result };
    } catch (err) {
      if (isSvcError(err)) return { id, error: err.code, message: err.message };
      if (err instanceof SyntaxError) return { id, error: 'BadRequest', message: 'each line must be one JSON object' };
      this.logger.error('jsonl door: unexpected failure', { requestId: id, error: (err as Error).message });
      return { id, error: 'InternalError', message: 'internal error' };
    }
  }
}
