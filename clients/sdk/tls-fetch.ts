import { Agent, fetch as undiciFetch } from 'undici';

/** TLS material for talking to the service over HTTPS: PEM text or bytes. */
export interface ClientTls {
  /** CA certificate(s) that signed the service's certificate, when it is not a public CA. */
  ca?: string | Buffer;
  /** Client certificate and its key, for a service that requires mutual TLS. */
  cert?: string | Buffer;
  key?: string | Buffer;
}

/**
 * A fetch whose connections carry the given CA and client certificate. The runtime's global fetch takes
 * no TLS options, so this one comes from undici (the library the runtime's fetch is built on) with an
 * agent of its own.
 */
export function fetchWithTls(tls: ClientTls): typeof fetch {
  if (Boolean(tls.cert) !== Boolean(tls.key))
    throw new TypeError('a client certificate needs its key, and a key its certificate');
  const dispatcher = new Agent({ connect: { ca: tls.ca, cert: tls.cert, key: tls.key } });
  return ((input: Parameters<typeof fetch>[0], init?: RequestInit) =>
    undiciFetch(input as Parameters<typeof undiciFetch>[0], {
      ...(init as object),
      dispatcher,
    })) as unknown as typeof fetch;
}
