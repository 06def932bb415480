import { redactUrl } from '../../config/urls.ts';
import { isLoopback } from '../../kernel/boot.ts';

/** Why `url` may not be used for outbound calls, or undefined when it may (https://, or http:// to a loopback host). */
function unsafeUrlReason(url: string): { parsed?: URL; reason?: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { reason: 'is not a URL' };
  }
  // URL keeps IPv6 hosts in brackets; isLoopback speaks the bind address's form.
  if (parsed.protocol === 'https:' || (parsed.protocol === 'http:' && isLoopback(parsed.hostname.replace(/^\[(.*)\]$/, '$1')))) return { parsed };
  return { parsed, reason: `must be https:// (plain http:// only to a loopback host), got ${parsed.protocol}//${parsed.host}` };
}

/**
 * An outbound URL that carries keys, tokens or audit data (a cloud KMS endpoint, a webhook, a language
 * model provider, an OIDC issuer and its key set): https://, or plain http:// only to a loopback host, so
 * nothing crosses a network in clear or to a host that anyone on the path could impersonate. Throws a
 * sentence naming `where` (the setting) otherwise.
 */
export function requireSafeUrl(where: string, url: string): URL {
  const { parsed, reason } = unsafeUrlReason(url);
  if (reason || !parsed) throw new Error(`${where}: url ${reason === 'is not a URL' ? `"${redactUrl(url)}" ` : ''}${reason}`);
  return parsed;
}

/**
 * The config format of every setting that names an outbound HTTP endpoint: empty (not used), or a URL
 * `requireSafeUrl` accepts. Checked by the one config validation, so a bad value fails the boot with
 * the setting's key and variable, whichever plugin declares it.
 */
export const httpsUrl = Object.defineProperty(
  (value: unknown): void => {
    if (value === '') return;
    if (typeof value !== 'string') throw new Error('must be a URL string');
    const { reason } = unsafeUrlReason(value);
    if (reason) throw new Error(reason);
  },
  'name',
  { value: 'https URL' },
);

/** A setting naming an outbound HTTP endpoint (format `httpsUrl`), empty by default. */
export function httpsUrlSetting(doc: string, env: string) {
  return { doc, format: httpsUrl, default: '' as string, env };
}
