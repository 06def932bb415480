import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';

export interface GateLimits {
  handshakeTimeoutMs: number;
  maxPendingHandshakes: number;
  maxConnections: number;
}

/** A live connection's peer: the raw socket and the TLS socket over it answer the same address and port. */
const peerOf = (socket: Socket) =>
  socket.remoteAddress === undefined ? undefined : `${socket.remoteAddress}|${socket.remotePort}`;

/**
 * Admits the KMIP listener's connections in two separate pools, so that one never starves the other.
 * A TCP connection waits for its TLS handshake in the pending pool: bounded in number (one past the bound
 * closes the oldest pending one: it has had the longest to present a certificate) and in time (an absolute
 * deadline from the accept, which a client trickling bytes cannot push back, unlike Node's idle-based
 * handshakeTimeout). A finished handshake (a certificate the client CA signed) leaves that pool for the
 * certified pool, bounded by maxConnections. Connections that never finish a handshake therefore never
 * count against certified clients, however many there are.
 */
export class ConnectionGate {
  /** Pending handshakes by peer, in the order they were accepted (a Map keeps insertion order). */
  private readonly pending = new Map<string, { socket: Socket; deadline: NodeJS.Timeout }>();
  private certified = 0;

  constructor(private readonly limits: GateLimits) {}

  /** How many connections wait for their handshake. */
  get pendingCount(): number {
    return this.pending.size;
  }

  /** A TCP connection was accepted (tls.Server's 'connection', the raw socket): its handshake starts. */
  accepted(socket: Socket): void {
    const peer = peerOf(socket);
    if (peer === undefined) return void socket.destroy(); // already gone
    // At least one: a bound of 0 would leave even the connection just accepted no room to finish.
    while (this.pending.size >= Math.max(1, this.limits.maxPendingHandshakes)) {
      const [oldest, entry] = this.pending.entries().next().value!;
      this.forget(oldest);
      entry.socket.destroy();
    }
    const deadline = setTimeout(() => socket.destroy(), this.limits.handshakeTimeoutMs).unref();
    this.pending.set(peer, { socket, deadline });
    socket.once('close', () => {
      if (this.pending.get(peer)?.socket === socket) this.forget(peer);
    });
  }

  /** Its handshake finished (tls.Server's 'secureConnection'): whether a certified place is free for it. */
  secured(socket: TLSSocket): boolean {
    const peer = peerOf(socket);
    if (peer !== undefined) this.forget(peer);
    if (this.certified >= this.limits.maxConnections) return false;
    this.certified++;
    socket.once('close', () => this.certified--);
    return true;
  }

  /** Closes every connection still in its handshake (the listener is stopping: they have asked nothing yet). */
  closePending(): void {
    for (const [peer, entry] of [...this.pending]) {
      this.forget(peer);
      entry.socket.destroy();
    }
  }

  private forget(peer: string): void {
    const entry = this.pending.get(peer);
    if (!entry) return;
    clearTimeout(entry.deadline);
    this.pending.delete(peer);
  }
}
