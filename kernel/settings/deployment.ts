/**
 * What the deployment as a whole decided, which a plugin may read beside its own settings: the kernel
 * hands it to every plugin's `configure`, so that no plugin reads another's settings or the whole
 * configuration.
 */
export interface Deployment {
  /** This node's id in audit events and its audit hash chain. */
  nodeId: string;
  /** Folder for this node's files that belong to no plugin's own setting (dead-letter files). */
  dataDir: string;
  /** Worker processes serving this node's listener; above 1, state must be shared between processes. */
  workers: number;
  /** The service's bind address and largest request body. */
  http: { host: string; maxBodyBytes: number };
  /** The kind chosen for each port chosen by kind, by its setting's section: `{journal: 'rdb-embedded', ...}`. */
  kinds: Readonly<Record<string, string>>;
  /** The deployment's shared HS256 secret (auth.hmacSecret): verifies HMAC tokens and signs agent tokens. */
  hmacSecret: string;
}
