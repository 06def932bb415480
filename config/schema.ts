import { defineConfig, type ConfigValues } from '../kernel/config-values.ts';
import { DEFAULT_STATE_BYTES } from '../kernel/detection/state-budget.ts';
import { LOG_LEVELS } from '../kernel/logger.ts';
import { wholeNumberOrAuto } from './workers.ts';

/**
 * The base configuration schema: what the deployment as a whole decides (bind, limits, which plugin
 * fills each port, the shared HMAC secret, preflight), with their names and defaults. Config-file keys
 * are the nested camelCase form of the variables. Every other setting belongs to the plugin that reads
 * it, in that plugin's config.ts, and is stitched in by config/load.ts; a plugin that does not exist
 * has no settings here.
 */
export const baseSchema = defineConfig({
  http: {
    host: { doc: 'Bind address.', format: String, default: '0.0.0.0', env: 'SVC_HTTP_HOST' },
    port: { doc: 'Bind port (0 picks a free one).', format: 'port', default: 8080, env: 'SVC_HTTP_PORT' },
    maxBodyBytes: { doc: 'Largest accepted request body, in bytes.', format: 'nat', default: 1048576, env: 'SVC_HTTP_MAX_BODY_BYTES' },
    shutdownGraceMs: { doc: 'How long in-flight requests may finish after SIGTERM before connections are closed.', format: 'nat', default: 5000, env: 'SVC_HTTP_SHUTDOWN_GRACE_MS' },
    headersTimeoutMs: { doc: 'A request whose headers have not all arrived after this long is answered 408.', format: 'nat', default: 10000, env: 'SVC_HTTP_HEADERS_TIMEOUT_MS' },
    requestTimeoutMs: { doc: 'A request that has not fully arrived after this long is answered 408.', format: 'nat', default: 30000, env: 'SVC_HTTP_REQUEST_TIMEOUT_MS' },
    keepAliveTimeoutMs: { doc: 'An idle keep-alive connection is closed after this long.', format: 'nat', default: 5000, env: 'SVC_HTTP_KEEP_ALIVE_TIMEOUT_MS' },
    maxConnections: { doc: 'Connections accepted at once; further ones are refused until one closes.', format: 'nat', default: 10000, env: 'SVC_HTTP_MAX_CONNECTIONS' },
    tls: {
      certFile: { doc: 'PEM certificate chain of the listener; with keyFile, the service speaks HTTPS only (TLS 1.2 or newer).', format: String, default: '', env: 'SVC_HTTP_TLS_CERT_FILE' },
      keyFile: { doc: 'PEM private key of the listener\'s certificate.', format: String, default: '', env: 'SVC_HTTP_TLS_KEY_FILE' },
      clientCaFile: { doc: 'PEM CA certificate(s): when set, every connection must present a client certificate signed by one of them (mutual TLS).', format: String, default: '', env: 'SVC_HTTP_TLS_CLIENT_CA_FILE' },
      terminatedUpstream: { doc: 'TLS ends at a proxy or load balancer in front of the service: plain HTTP on an exposed bind is then no preflight finding.', format: Boolean, default: false, env: 'SVC_HTTP_TLS_TERMINATED_UPSTREAM' },
    },
  },
  node: {
    id: { doc: 'This node\'s id in audit events and its audit hash chain; unique per node. Empty: host name and port.', format: String, default: '', env: 'SVC_NODE_ID' },
    dataDir: { doc: 'Folder for files of this node that belong to no plugin (audit dead-letter files).', format: String, default: 'data', env: 'SVC_DATA_DIR' },
  },
  auth: {
    kind: { doc: 'How callers authenticate.', format: ['dev', 'hmac', 'oidc'], default: 'dev', env: 'SVC_AUTH_KIND' },
    hmacSecret: { doc: 'HS256 secret (at least 32 bytes); also signs issued agent tokens.', format: String, default: '', env: 'SVC_AUTH_HMAC_SECRET', sensitive: true },
  },
  journal: {
    kind: { doc: 'Where key state is journaled.', format: ['in-memory', 'rdb-server-1', 'rdb-server-2', 'rdb-embedded'], default: 'in-memory', env: 'SVC_JOURNAL_KIND' },
  },
  crypto: {
    kind: { doc: 'Root of trust holding the key-encryption key.', format: ['in-memory', 'cloud-kms', 'pkcs11'], default: 'in-memory', env: 'SVC_CRYPTO_KIND' },
  },
  revocation: {
    kind: { doc: 'Token revocation list backend.', format: ['none', 'in-memory', 'kv-store'], default: 'in-memory', env: 'SVC_REVOCATION_KIND' },
  },
  policy: {
    kind: { doc: 'Authorization policy.', format: ['dev', 'role-based'], default: 'dev', env: 'SVC_POLICY_KIND' },
  },
  detectors: {
    enabled: { doc: 'Anomaly detectors to run: all, none, or a comma list of detector names.', format: String, default: 'all', env: 'SVC_DETECTORS_ENABLED' },
    maxStateBytes: { doc: 'Bytes of per-actor state all detectors together may keep; the least recently seen actors are dropped beyond it.', format: 'nat', default: DEFAULT_STATE_BYTES, env: 'SVC_DETECTORS_MAX_STATE_BYTES' },
  },
  rateLimit: {
    enabled: { doc: 'Refuse calls over a per-principal rate (429 with Retry-After), per node.', format: Boolean, default: true, env: 'SVC_RATE_LIMIT_ENABLED' },
    requestsPerSecond: { doc: 'Average calls per second one principal may make.', format: 'nat', default: 1000, env: 'SVC_RATE_LIMIT_RPS' },
    burst: { doc: 'Calls one principal may make at once, above the average.', format: 'nat', default: 2000, env: 'SVC_RATE_LIMIT_BURST' },
  },
  audit: {
    kind: { doc: 'Primary audit sink.', format: ['stdout', 'rdb-server-1', 'rdb-server-2', 'rdb-embedded'], default: 'stdout', env: 'SVC_AUDIT_KIND' },
    fanoutThread: {
      doc: 'Run the secondary audit sinks (webhook, log stream, message stream, third-party sinks) on a worker thread of each node instead of its request loop: their CPU then goes to another core. Worth it when the host has cores the workers do not use (server.workers below the core count).',
      format: Boolean, default: false, env: 'SVC_AUDIT_FANOUT_THREAD',
    },
  },
  security: {
    preflight: { doc: 'warn prints dev-grade findings; enforce refuses to boot on an exposed bind.', format: ['warn', 'enforce'], default: 'warn', env: 'SVC_SECURITY_PREFLIGHT' },
  },
  log: {
    level: { doc: 'Least severe log line written; logs are JSON lines on stderr.', format: [...LOG_LEVELS], default: 'info', env: 'SVC_LOG_LEVEL' },
  },
  server: {
    workers: {
      doc: 'Worker processes serving the one listener (node:cluster), each a node of its own (node id <node.id>-w<N>); auto: one per usable core. Above 1 the journal and audit store must be shared (rdb-server-1, rdb-server-2 or rdb-embedded) and revocation.kind kv-store or none.',
      format: wholeNumberOrAuto, default: '1' as string, env: 'SVC_WORKERS',
    },
  },
  plugins: { doc: 'Third-party plugins: package names or paths (relative to the config file).', format: Array, default: [] },
});

/** The base settings' values, as every plugin's configSlice receives them beside its own. */
export type BaseConfig = ConfigValues<typeof baseSchema>;
