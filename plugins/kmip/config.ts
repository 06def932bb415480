import { defineConfig } from '../../kernel/index.ts';

export const kmipConfig = defineConfig({
  kmip: {
    enabled: {
      doc: 'Serve KMIP (binary TTLV over mutual TLS, protocol 1.0-1.4 and 2.0) on its own port: each client certificate\'s subject CN is a Service principal, its O the tenant; every operation runs through the REST API\'s policy, risk, rate limits and audit.',
      format: Boolean, default: false, env: 'SVC_KMIP_ENABLED',
    },
    host: { doc: 'Bind address of the KMIP listener. Empty: the HTTP listener\'s (http.host).', format: String, default: '', env: 'SVC_KMIP_HOST' },
    port: { doc: 'Port of the KMIP listener (5696 is KMIP\'s registered port; 0 picks a free one).', format: 'port', default: 5696, env: 'SVC_KMIP_PORT' },
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
  /** Connections accepted at once (the HTTP listener's http.maxConnections). */
  maxConnections: number;
}
