import { defineConfig } from '../../kernel/index.ts';

export const kmipConfig = defineConfig({
  kmip: {
    enabled: {
      doc: 'Serve KMIP (binary TTLV over mutual TLS, protocol 1.0-1.4 and 2.0) on its own port: each client certificate\'s subject CN is a Service principal, its O the tenant; every operation runs through the REST API\'s policy, risk, rate limits and audit.',
      format: Boolean, default: false, env: 'SVC_KMIP_ENABLED',
    },
    host: { doc: 'Bind address of the KMIP listener. Empty: the HTTP listener\'s (http.host).', format: String, default: '', env: 'SVC_KMIP_HOST' },
    port: { doc: 'Port of the KMIP listener (5696 is KMIP\'s registered port; 0 picks a free one).', format: 'port', default: 5696, env: 'SVC_KMIP_PORT' },
    maxConnections: {
      doc: 'Certified connections (TLS handshake finished) the KMIP listener holds at once; a client past it is closed after its handshake until one ends. Connections still in their handshake never count here (see kmip.maxPendingHandshakes). KMIP clients are few (databases, arrays, hypervisors) and each may hold a few MiB of messages in flight, so this is far below http.maxConnections.',
      format: 'nat', default: 256, env: 'SVC_KMIP_MAX_CONNECTIONS',
    },
    handshakeTimeoutMs: {
      doc: 'A connection whose TLS handshake has not finished this long after it was accepted is closed, however slowly it keeps sending (an absolute deadline, not an idle timer).',
      format: 'nat', default: 10000, env: 'SVC_KMIP_HANDSHAKE_TIMEOUT_MS',
    },
    maxPendingHandshakes: {
      doc: 'Connections the KMIP listener holds in their TLS handshake at once, apart from kmip.maxConnections; one more closes the oldest of them, so TCP connections that never present a certificate cannot shut certified clients out. Each costs a few KiB.',
      format: 'nat', default: 1024, env: 'SVC_KMIP_MAX_PENDING_HANDSHAKES',
    },
    tls: {
      certFile: { doc: 'PEM certificate chain of the KMIP listener (required when kmip.enabled).', format: String, default: '', env: 'SVC_KMIP_TLS_CERT_FILE' },
      keyFile: { doc: 'PEM private key of the KMIP listener\'s certificate (required when kmip.enabled).', format: String, default: '', env: 'SVC_KMIP_TLS_KEY_FILE' },
      clientCaFile: { doc: 'PEM CA certificate(s) that sign the KMIP clients\' certificates (required when kmip.enabled): a client without one is refused in the handshake.', format: String, default: '', env: 'SVC_KMIP_TLS_CLIENT_CA_FILE' },
    },
  },
});

/** The KMIP door's slice of the configuration. */
export interface KmipSettings {
  host: string;
  port: number;
  certFile: string;
  keyFile: string;
  clientCaFile: string;
  /** Certified connections (handshake finished) held at once (kmip.maxConnections). */
  maxConnections: number;
  /** Deadline of a TLS handshake from the connection's accept (kmip.handshakeTimeoutMs). */
  handshakeTimeoutMs: number;
  /** Connections in their handshake held at once; one more closes the oldest (kmip.maxPendingHandshakes). */
  maxPendingHandshakes: number;
}
