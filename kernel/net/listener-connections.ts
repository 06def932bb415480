import type { Server, Socket } from 'node:net';

/** How long a connection may stay open after its last answer once its door is stopping. */
const CLOSE_GRACE_MS = 2_000;

/**
 * The connections of a door that owns its listener (KMIP, a socket door), and the answers they are
 * writing, so that the door stops the way the HTTP door does: it stops accepting, lets every call in
 * flight answer, ends each connection, and cuts one whose client never closes its side after a grace.
 */
export class ListenerConnections {
  private readonly sockets = new Set<Socket>();
  private readonly inFlight = new Set<Promise<unknown>>();

  /** Counts `socket` as open until it closes; an error on it closes it. */
  track(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  }

  /** Counts `reply` (an answer being made and written) as in flight until it settles. */
  answering(reply: Promise<unknown>): void {
    this.inFlight.add(reply);
    void reply.finally(() => this.inFlight.delete(reply));
  }

  /** The connections open now. */
  get size(): number {
    return this.sockets.size;
  }

  /**
   * Closes `server` for new connections, waits for the answers in flight, then ends every connection,
   * destroying those still open `graceMs` later; resolves once the listener has closed.
   */
  async close(server: Server, graceMs = CLOSE_GRACE_MS): Promise<void> {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    while (this.inFlight.size) await Promise.all(this.inFlight);
    for (const socket of this.sockets) {
      socket.end();
      // A client that never closes its side would hold the listener's close open: it has had its answers.
      setTimeout(() => socket.destroy(), graceMs).unref();
    }
    await closed;
  }
}
