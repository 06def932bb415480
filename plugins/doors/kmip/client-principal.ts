import type { PeerCertificate } from 'node:tls';
import { CALLER_TEXT_RULE, isCallerText, type Principal, reservedSubjectProblem } from '../../../kernel/index.ts';

const usable = (text: string) => [...text].length <= 256 && isCallerText(text);

/**
 * The caller of a KMIP connection: a Service whose subject is the client certificate's subject CN and
 * whose tenant is its O, when present. The TLS handshake already proved the certificate chains to the
 * configured client CA. A CN held to the check of all caller-chosen text (it is written to log and audit
 * lines, which a control or invisible character could split or disguise), not reading as a subject the
 * service reserves (`svc-system`, `agent-<uuid>`, after NFKC, dash and case folding: `SVC-SYSTEM`,
 * `svc-system `), or else the reason is returned instead and the connection authenticates no one.
 */
export function clientPrincipal(cert: PeerCertificate | undefined): Principal | { refused: string } {
  const { CN: cn, O: o } = cert?.subject ?? {};
  // Two CNs (or Os): which one a CA checked is unknown (Go's crypto/x509 reads the last), so neither is trusted.
  if (Array.isArray(cn) || Array.isArray(o))
    return { refused: 'the client certificate names more than one subject CN or O' };
  if (!cn || !usable(cn))
    return {
      refused: `the client certificate has no usable subject CN (1..256 characters that ${CALLER_TEXT_RULE.replace(/^must not/, 'do not')})`,
    };
  const reserved = reservedSubjectProblem(cn);
  if (reserved) return { refused: reserved };
  return { kind: 'Service', subject: cn, ...(o && usable(o) ? { tenant: o } : {}), groups: [] };
}
