import { hostname } from 'node:os';

/**
 * This node's id: node.id, or the host name and the bind port (the process id when the port is
 * picked at random). It names the node in audit events and the node's own hash chain, so two nodes
 * writing one audit database must not share it.
 */
export function nodeIdOf(all: { node: { id: string }; http: { port: number } }): string {
  return all.node.id || `${hostname()}:${all.http.port || process.pid}`;
}
