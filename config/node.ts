import { hostname } from 'node:os';

/**
 * This node's id: node.id, or the host name and the bind port (the process id when the port is
 * picked at random). It names the node in audit events and the node's own hash chain, so two nodes
 * writing one audit database must not share it.
 */
export function nodeIdOf(all: { node: { id: string }; http: { port: number } }): string {
  return all.node.id || `${hostname()}:${all.http.port || process.pid}`;
}

/**
 * The node id of a server command (rewrap, replay-dead-letters) run beside the serving node it shares
 * its configuration with: `<node id>/<command>-<start time>-<pid>`. The command writes audit rows too,
 * and under the serving node's id the chain would have two writers, each chaining from its own idea of
 * the head (a fork that verify rightly reports). With an id of its own per run, the command's rows form
 * their own short chain, registered in the journal at start like any node's, and several commands at
 * once never share one either.
 */
export function commandNodeId(servingNode: string, command: string, at: Date = new Date()): string {
  return `${servingNode}/${command}-${at.toISOString().replace(/[-:.]/g, '')}-${process.pid}`;
}
