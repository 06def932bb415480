import { isLoopback } from './loopback.ts';

/**
 * The one rule for every URL the service calls out to (a cloud KMS endpoint, a webhook, a language model,
 * an OIDC issuer and its key set, an OTLP trace collector): https://, or plain http:// only to a loopback
 * host, so nothing it sends crosses a network in clear or to a host anyone on the path could impersonate.
 * Returns why `url` breaks it, or undefined when it does not.
 */
export function outboundUrlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is not a URL';
  }
  // URL keeps IPv6 hosts in brackets; isLoopback speaks the bind address's form.
  if (
    parsed.protocol === 'https:' ||
    (parsed.protocol === 'http:' && isLoopback(parsed.hostname.replace(/^\[(.*)\]$/, '$1')))
  )
    return undefined;
  return `must be https:// (plain http:// only to a loopback host), got ${parsed.protocol}//${parsed.host}`;
}
