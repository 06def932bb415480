import type { PeerCertificate } from 'node:tls';
import { SYSTEM_PRINCIPAL, type Principal } from '../../kernel/index.ts';

const PRINTABLE = /^[^\x00-\x1f\x7f]{1,256}$/;

const first = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);

/**
 * The caller of a KMIP connection: a Service whose subject is the client certificate's subject CN and
 * whose tenant is its O, when present. The TLS handshake already proved the certificate chains to the
 * configured client CA. A certificate without a usable CN, or naming the service's own internal subject,
 * authenticates no one: the reason is returned instead.
 */
export function clientPrincipal(cert: PeerCertificate | undefined): Principal | { refused: string } {
  const cn = first(cert?.subject?.CN);
  if (!cn || !PRINTABLE.test(cn)) return { refused: 'the client certificate has no usable subject CN (1..256 printable characters)' };
  if (cn === SYSTEM_PRINCIPAL.subject) return { refused: `the subject ${SYSTEM_PRINCIPAL.subject} is reserved for the service itself` };
  const o = first(cert?.subject?.O);
  return { kind: 'Service', subject: cn, ...(o && PRINTABLE.test(o) ? { tenant: o } : {}), groups: [] };
}
