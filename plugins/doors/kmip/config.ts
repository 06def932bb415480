import { Type } from '@sinclair/typebox';
import { defineSettings } from '../../../kernel/index.ts';

export const kmipSettings = defineSettings(
  Type.Object({
    kmip: Type.Object({
      enabled: Type.Boolean({
        description:
          'Serve KMIP (binary TTLV over mutual TLS, protocol 1.0-1.4 and 2.0) on ' +
          "its own port: each client certificate's subject CN is a Service " +
          'principal, its O the tenant; every operation runs through the REST ' +
          "API's policy, risk, rate limits and audit.",
        default: false,
      }),
      host: Type.String({
        description: "Bind address of the KMIP listener. Empty: the HTTP listener's (http.host).",
        default: '',
      }),
      port: Type.Integer({
        minimum: 0,
        maximum: 65535,
        description: "Port of the KMIP listener (5696 is KMIP's registered port; 0 picks a free one).",
        default: 5696,
      }),
      maxConnections: Type.Integer({
        minimum: 0,
        description:
          'Certified connections (TLS handshake finished) the KMIP listener holds ' +
          'at once; a client past it is closed after its handshake until one ' +
          'ends. Connections still in their handshake never count here (see ' +
          'kmip.maxPendingHandshakes). KMIP clients are few (databases, arrays, ' +
          'hypervisors) and each may hold a few MiB of messages in flight, so ' +
          'this is far below http.maxConnections.',
        default: 256,
      }),
      handshakeTimeoutMs: Type.Integer({
        minimum: 0,
        description:
          'A connection whose TLS handshake has not finished this long after it ' +
          'was accepted is closed, however slowly it keeps sending (an absolute ' +
          'deadline, not an idle timer).',
        default: 10000,
      }),
      maxPendingHandshakes: Type.Integer({
        minimum: 0,
        description:
          'Connections the KMIP listener holds in their TLS handshake at once, ' +
          'apart from kmip.maxConnections; one more closes the oldest of them, so ' +
          'TCP connections that never present a certificate cannot shut certified ' +
          'clients out. Each costs a few KiB.',
        default: 1024,
      }),
      tls: Type.Object({
        certFile: Type.String({
          description: 'PEM certificate chain of the KMIP listener (required when kmip.enabled).',
          default: '',
        }),
        keyFile: Type.String({
          description: "PEM private key of the KMIP listener's certificate (required when kmip.enabled).",
          default: '',
        }),
        clientCaFile: Type.String({
          description:
            "PEM CA certificate(s) that sign the KMIP clients' certificates " +
            '(required when kmip.enabled): a client without one is refused in the handshake.',
          default: '',
        }),
      }),
    }),
  }),
);

/** What the KMIP door receives (kmip.host empty: the deployment's http.host). */
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
