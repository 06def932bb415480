import { type Static, Type } from '@sinclair/typebox';
import { DEFAULT_STATE_BYTES } from '../kernel/detection/state-budget.ts';
import { LOG_LEVELS } from '../kernel/logger.ts';
import { auditSinkPort } from '../kernel/ports/audit-sink.ts';
import { authenticatorPort } from '../kernel/ports/authenticator.ts';
import { journalPort } from '../kernel/ports/journal.ts';
import { policyPort } from '../kernel/ports/policy.ts';
import { revocationPort } from '../kernel/ports/revocation.ts';
import { rootOfTrustPort } from '../kernel/ports/root-of-trust.ts';
import { kindSetting } from '../kernel/settings/choose-by-kind.ts';
import { defineSettings } from '../kernel/settings/settings.ts';

/**
 * The base configuration schema: what the deployment as a whole decides (bind, limits, which plugin
 * fills each port, the shared HMAC secret, preflight), with their names and defaults. Config-file keys
 * are the nested camelCase form of the variables. Every other setting belongs to the plugin that reads
 * it, declared by that plugin (its settings), and is stitched in by app/start.ts; a plugin that does not exist
 * has no settings here.
 */
export const baseSchema = defineSettings(
  Type.Object({
    http: Type.Object({
      host: Type.String({ description: 'Bind address.', default: '0.0.0.0' }),
      port: Type.Integer({ minimum: 0, maximum: 65535, description: 'Bind port (0 picks a free one).', default: 8080 }),
      maxBodyBytes: Type.Integer({
        minimum: 0,
        description: 'Largest accepted request body, in bytes.',
        default: 1048576,
      }),
      shutdownGraceMs: Type.Integer({
        minimum: 0,
        description: 'How long in-flight requests may finish after SIGTERM before connections are closed.',
        default: 5000,
      }),
      headersTimeoutMs: Type.Integer({
        minimum: 0,
        description: 'A request whose headers have not all arrived after this long is answered 408.',
        default: 10000,
      }),
      requestTimeoutMs: Type.Integer({
        minimum: 0,
        description: 'A request that has not fully arrived after this long is answered 408.',
        default: 30000,
      }),
      keepAliveTimeoutMs: Type.Integer({
        minimum: 0,
        description: 'An idle keep-alive connection is closed after this long.',
        default: 5000,
      }),
      maxConnections: Type.Integer({
        minimum: 0,
        description: 'Connections accepted at once; further ones are refused until one closes.',
        default: 10000,
      }),
      tls: Type.Object({
        certFile: Type.String({
          description:
            'PEM certificate chain of the listener; with keyFile, the service speaks HTTPS only (TLS 1.2 or newer).',
          default: '',
        }),
        keyFile: Type.String({ description: "PEM private key of the listener's certificate.", default: '' }),
        clientCaFile: Type.String({
          description:
            'PEM CA certificate(s): when set, every connection must present a ' +
            'client certificate signed by one of them (mutual TLS).',
          default: '',
        }),
        terminatedUpstream: Type.Boolean({
          description:
            'TLS ends at a proxy or load balancer in front of the service: plain ' +
            'HTTP on an exposed bind is then no preflight finding.',
          default: false,
        }),
      }),
    }),
    node: Type.Object({
      id: Type.String({
        description:
          "This node's id in audit events and its audit hash chain; unique per node. Empty: host name and port.",
        default: '',
      }),
      dataDir: Type.String({
        description: 'Folder for files of this node that belong to no plugin (audit dead-letter files).',
        default: 'data',
        env: 'SVC_DATA_DIR',
      }),
    }),
    auth: Type.Object({
      kind: kindSetting(authenticatorPort, 'How callers authenticate.', 'dev'),
      hmacSecret: Type.String({
        description: 'HS256 secret (at least 32 bytes); also signs issued agent tokens.',
        default: '',
        sensitive: true,
      }),
    }),
    journal: Type.Object({
      kind: kindSetting(journalPort, 'Where key state is journaled.', 'in-memory'),
    }),
    crypto: Type.Object({
      kind: kindSetting(rootOfTrustPort, 'Root of trust holding the key-encryption key.', 'in-memory'),
    }),
    revocation: Type.Object({
      kind: kindSetting(revocationPort, 'Token revocation list backend.', 'in-memory'),
    }),
    policy: Type.Object({
      kind: kindSetting(policyPort, 'Authorization policy.', 'dev'),
    }),
    detectors: Type.Object({
      enabled: Type.String({
        description: 'Anomaly detectors to run: all, none, or a comma list of detector names.',
        default: 'all',
      }),
      maxStateBytes: Type.Integer({
        minimum: 0,
        description:
          'Bytes of per-actor state all detectors together may keep; the least ' +
          'recently seen actors are dropped beyond it.',
        default: DEFAULT_STATE_BYTES,
      }),
    }),
    rateLimit: Type.Object({
      enabled: Type.Boolean({
        description: 'Refuse calls over a per-principal rate (429 with Retry-After), per node.',
        default: true,
      }),
      requestsPerSecond: Type.Integer({
        minimum: 0,
        description: 'Average calls per second one principal may make.',
        default: 1000,
        env: 'SVC_RATE_LIMIT_RPS',
      }),
      burst: Type.Integer({
        minimum: 0,
        description: 'Calls one principal may make at once, above the average.',
        default: 2000,
      }),
    }),
    audit: Type.Object({
      kind: kindSetting(auditSinkPort, 'Primary audit sink.', 'stdout'),
      fanoutThread: Type.Boolean({
        description:
          'Run the secondary audit sinks (webhook, log stream, message stream, ' +
          'third-party sinks) on a worker thread of each node instead of its ' +
          'request loop: their CPU then goes to another core. Worth it when the ' +
          'host has cores the workers do not use (server.workers below the core count).',
        default: false,
      }),
    }),
    security: Type.Object({
      preflight: Type.Union([Type.Literal('warn'), Type.Literal('enforce')], {
        description: 'warn prints dev-grade findings; enforce refuses to boot on an exposed bind.',
        default: 'warn',
      }),
    }),
    log: Type.Object({
      level: Type.Union(
        LOG_LEVELS.map((level) => Type.Literal(level)),
        { description: 'Least severe log line written; logs are JSON lines on stderr.', default: 'info' },
      ),
    }),
    server: Type.Object({
      workers: Type.String({
        format: 'whole-number-or-auto',
        description:
          'Worker processes serving the one listener (node:cluster), each a node ' +
          'of its own (node id <node.id>-w<N>); auto: one per usable core. Above ' +
          '1 the journal and audit store must be shared (rdb-server-1, ' +
          'rdb-server-2 or rdb-embedded) and revocation.kind kv-store or none.',
        default: '1',
        env: 'SVC_WORKERS',
      }),
    }),
    plugins: Type.Array(Type.Unknown(), {
      description: 'Third-party plugins: package names or paths (relative to the config file).',
      default: [],
      env: false,
    }),
  }),
);

/** The base settings' values. */
export type BaseConfig = Static<typeof baseSchema>;

/** The whole validated configuration: the base settings, typed, and every plugin's, which only their plugins read. */
export type LoadedValues = BaseConfig & Record<string, unknown>;
