import { isLoopback } from '../../kernel/boot.ts';

/**
 * An outbound URL that carries audit data (a webhook, a language-model provider): https://, or plain
 * http:// only to a loopback host, so audit never crosses a network in clear. Throws a sentence naming
 * `where` (the setting) otherwise.
 */
export function requireSafeUrl(where: string, url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`${where}: url "${url}" is not a URL`);
  }
  // URL keeps IPv6 hosts in brackets; isLoopback speaks the bind address's form.
  if (parsed.protocol === 'https:' || (parsed.protocol === 'http:' && isLoopback(parsed.hostname.replace(/^\[(.*)\]$/, '$1')))) return parsed;
  throw new Error(`${where}: url must be https:// (plain http:// only to a loopback host), got ${parsed.protocol}//${parsed.host}`);
}
