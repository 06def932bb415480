import type { PeerCertificate } from 'node:tls';
import { SYSTEM_PRINCIPAL, type Principal } from '../../kernel/index.ts';

// No control character (C0, DEL, C1), line or paragraph separator, or invisible format character: the
// subject is written to log and audit lines, which such a character could split in two, and an invisible
// one would show a subject as another (`svc-system` followed by a zero-width space).
const PRINTABLE = /^[^\p{Cc}\p{Cf}\p{Zl}\p{Zp}]{1,256}$/u;

/** The service names the agents it issues `agent-<uuid>`; the audit, the advisor and the auto-responder read such a subject as that agent. */
const ISSUED_AGENT_ID = /^agent-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;


/**
 * The caller of a KMIP connection: a Service whose subject is the client certificate's subject CN and
 * whose tenant is its O, when present. The TLS handshake already proved the certificate chains to the
 * configured client CA. A certificate without a usable CN, naming the service's own internal subject, or
 * shaped like an agent id the service issues, authenticates no one: the reason is returned instead.
 */
export function clientPrincipal(cert: PeerCertificate | undefined): Principal | { refused: string } {
  const { CN: cn, O: o } = cert?.subject ?? {};
  // Two CNs (or Os): which one a CA checked is unknown (Go's crypto/x509 reads the last), so neither is trusted.
  if (Array.isArray(cn) || Array.isArray(o)) return { refused: 'the client certificate names more than one subject CN or O' };
  if (!cn || !PRINTABLE.test(cn)) return { refused: 'the client certificate has no usable subject CN (1..256 printable characters, no control or invisible ones)' };
  if (cn === SYSTEM_PRINCIPAL.subject) return { refused: `the subject ${SYSTEM_PRINCIPAL.subject} is reserved for the service itself` };
  if (ISSUED_AGENT_ID.test(cn)) return { refused: `the subject ${cn} has the form of the service's agent ids (agent-<uuid>), which only the service issues` };
  return { kind: 'Service', subject: cn, ...(o && PRINTABLE.test(o) ? { tenant: o } : {}), groups: [] };
}
