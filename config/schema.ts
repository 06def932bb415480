import type { ConfigFragment } from '../kernel/define-plugin.ts';

/**
 * The base configuration schema: SPEC 1's SVC_* variables and DECISIONS' additions, with their
 * defaults and allowed values. Config-file keys are the nested camelCase form of the variables.
 * Plugin-specific settings live in each plugin's own fragment and are stitched in by config/load.ts.
 */
export const baseSchema: ConfigFragment = {
  http: {
    host: { doc: 'Bind address.', format: String, default: '0.0.0.0', env: 'SVC_HTTP_HOST' },
    port: { doc: 'Bind port (0 picks a free one).', format: 'port', default: 8080, env: 'SVC_HTTP_PORT' },
    maxBodyBytes: { doc: 'Largest accepted request body, in bytes.', format: 'nat', default: 1048576, env: 'SVC_HTTP_MAX_BODY_BYTES' },
    shutdownGraceMs: { doc: 'How long in-flight requests may finish after SIGTERM before connections are closed.', format: 'nat', default: 5000, env: 'SVC_HTTP_SHUTDOWN_GRACE_MS' },
    headersTimeoutMs: { doc: 'A request whose headers have not all arrived after this long is answered 408.', format: 'nat', default: 10000, env: 'SVC_HTTP_HEADERS_TIMEOUT_MS' },
    requestTimeoutMs: { doc: 'A request that has not fully arrived after this long is answered 408.', format: 'nat', default: 30000, env: 'SVC_HTTP_REQUEST_TIMEOUT_MS' },
    keepAliveTimeoutMs: { doc: 'An idle keep-alive connection is closed after this long.', format: 'nat', default: 5000, env: 'SVC_HTTP_KEEP_ALIVE_TIMEOUT_MS' },
    maxConnections: { doc: 'Connections accepted at once; further ones are refused until one closes.', format: 'nat', default: 10000, env: 'SVC_HTTP_MAX_CONNECTIONS' },
  },
  auth: {
    kind: { doc: 'How callers authenticate.', format: ['dev', 'hmac', 'oidc'], default: 'dev', env: 'SVC_AUTH_KIND' },
    hmacSecret: { doc: 'HS256 secret (at least 32 bytes); also signs issued agent tokens.', format: String, default: '', env: 'SVC_AUTH_HMAC_SECRET', sensitive: true },
    oidc: {
      issuerUri: { doc: 'OIDC issuer; required when auth.kind is oidc.', format: String, default: '', env: 'SVC_AUTH_OIDC_ISSUER_URI' },
      audience: { doc: 'Expected aud claim (set one in production).', format: String, default: '', env: 'SVC_AUTH_OIDC_AUDIENCE' },
      jwksCacheTtlSeconds: { doc: 'Key-set cache lifetime.', format: 'nat', default: 3600, env: 'SVC_AUTH_OIDC_JWKS_CACHE_TTL_SECONDS' },
    },
  },
  journal: {
    kind: { doc: 'Where key state is journaled.', format: ['in-memory', 'rdb-server-1', 'rdb-server-2', 'rdb-embedded'], default: 'in-memory', env: 'SVC_JOURNAL_KIND' },
  },
  jdbc: {
    url: { doc: 'rdb-server-1 (PostgreSQL) URL, JDBC-style or native.', format: String, default: 'jdbc:postgresql://localhost:5432/svc', env: 'SVC_JDBC_URL' },
    username: { doc: 'rdb-server-1 user.', format: String, default: '', env: 'SVC_JDBC_USERNAME' },
    password: { doc: 'rdb-server-1 password; no default, the operator supplies it.', format: String, default: '', env: 'SVC_JDBC_PASSWORD', sensitive: true },
  },
  rdb2: {
    jdbcUrl: { doc: 'rdb-server-2 (MySQL/MariaDB) URL, JDBC-style or native.', format: String, default: '', env: 'SVC_RDB2_JDBC_URL' },
    username: { doc: 'rdb-server-2 user.', format: String, default: '', env: 'SVC_RDB2_USERNAME' },
    password: { doc: 'rdb-server-2 password.', format: String, default: '', env: 'SVC_RDB2_PASSWORD', sensitive: true },
  },
  database: {
    poolMax: { doc: 'Connections per pool (journal and audit each have one) on rdb-server-1/2.', format: 'nat', default: 10, env: 'SVC_DB_POOL_MAX' },
    acquireTimeoutMs: { doc: 'How long a request waits for a database connection before it answers 503.', format: 'nat', default: 3000, env: 'SVC_DB_ACQUIRE_TIMEOUT_MS' },
    bootTimeoutMs: { doc: 'How long boot waits for the database before it fails.', format: 'nat', default: 15000, env: 'SVC_DB_BOOT_TIMEOUT_MS' },
  },
  rdbEmbedded: {
    jdbcUrl: { doc: 'rdb-embedded (SQLite) journal file: jdbc:sqlite:/path/journal.db or a plain path. Never in-memory.', format: String, default: 'data/journal.db', env: 'SVC_RDB_EMBEDDED_JDBC_URL' },
  },
  crypto: {
    kind: { doc: 'Root of trust holding the key-encryption key.', format: ['in-memory', 'cloud-kms'], default: 'in-memory', env: 'SVC_CRYPTO_KIND' },
    localKek: { doc: 'in-memory root of trust: base64 of the 32-byte KEK. Without it: a file beside journal.db (rdb-embedded) or random per process (in-memory journal).', format: String, default: '', env: 'SVC_CRYPTO_LOCAL_KEK', sensitive: true },
    cloudKms: {
      region: { doc: 'cloud-kms region; required when crypto.kind is cloud-kms.', format: String, default: '', env: 'SVC_CRYPTO_CLOUD_KMS_REGION' },
      kekArn: { doc: 'cloud-kms key ARN; required when crypto.kind is cloud-kms.', format: String, default: '', env: 'SVC_CRYPTO_CLOUD_KMS_KEK_ARN' },
      endpoint: { doc: 'cloud-kms endpoint override (emulators).', format: String, default: '', env: 'SVC_CRYPTO_CLOUD_KMS_ENDPOINT' },
    },
    cacheTtlSeconds: { doc: 'How long unwrapped material stays cached in memory (cloud-kms).', format: 'nat', default: 300, env: 'SVC_CRYPTO_CACHE_TTL_SECONDS' },
  },
  revocation: {
    kind: { doc: 'Token revocation list backend.', format: ['none', 'in-memory', 'kv-store'], default: 'in-memory', env: 'SVC_REVOCATION_KIND' },
    kvUri: { doc: 'kv-store URI; required when revocation.kind is kv-store.', format: String, default: '', env: 'SVC_REVOCATION_KV_URI', sensitive: true },
    kvKeyPrefix: { doc: 'kv-store key prefix.', format: String, default: 'svc:revoked:', env: 'SVC_REVOCATION_KV_KEY_PREFIX' },
  },
  policy: {
    kind: { doc: 'Authorization policy.', format: ['dev', 'role-based'], default: 'dev', env: 'SVC_POLICY_KIND' },
    roleBindings: { doc: 'role-based: group -> list of Operation names (JSON in env).', format: Object, default: {}, env: 'SVC_POLICY_ROLE_BINDINGS' },
    subjectBindings: { doc: 'role-based: subject -> list of Operation names (JSON in env).', format: Object, default: {}, env: 'SVC_POLICY_SUBJECT_BINDINGS' },
  },
  honeyKeys: { doc: 'Comma-separated honey key ids (UUIDs).', format: String, default: '', env: 'SVC_HONEY_KEYS' },
  detectors: {
    enabled: { doc: 'Anomaly detectors to run: all, none, or a comma list of detector names.', format: String, default: 'all', env: 'SVC_DETECTORS_ENABLED' },
  },
  audit: {
    kind: { doc: 'Primary audit sink.', format: ['stdout', 'rdb-server-1', 'rdb-server-2', 'rdb-embedded'], default: 'stdout', env: 'SVC_AUDIT_KIND' },
    retentionDays: { doc: 'Audit rows older than this are pruned daily; 0 disables pruning.', format: 'nat', default: 365, env: 'SVC_AUDIT_RETENTION_DAYS' },
    embeddedPath: { doc: 'rdb-embedded audit file; empty means audit.db beside journal.db.', format: String, default: '', env: 'SVC_AUDIT_EMBEDDED_PATH' },
  },
  security: {
    preflight: { doc: 'warn prints dev-grade findings; enforce refuses to boot on an exposed bind.', format: ['warn', 'enforce'], default: 'warn', env: 'SVC_SECURITY_PREFLIGHT' },
  },
  advisor: {
    llm: {
      provider: { doc: 'Language-model provider for narration; none makes no outbound calls.', format: String, default: 'none', env: 'SVC_ADVISOR_LLM_PROVIDER' },
      apiKey: { doc: 'Provider API key.', format: String, default: '', env: 'SVC_ADVISOR_LLM_API_KEY', sensitive: true },
      baseUrl: { doc: 'Provider base URL.', format: String, default: '', env: 'SVC_ADVISOR_LLM_BASE_URL' },
      model: { doc: 'Model name.', format: String, default: '', env: 'SVC_ADVISOR_LLM_MODEL' },
      maxTokens: { doc: 'Narration length cap.', format: 'nat', default: 512, env: 'SVC_ADVISOR_LLM_MAX_TOKENS' },
    },
  },
  plugins: { doc: 'Third-party plugins: package names or paths (relative to the config file).', format: Array, default: [] },
};
