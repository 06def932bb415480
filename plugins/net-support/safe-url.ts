import { redactUrl } from '../../config/urls.ts';
import { outboundUrlProblem } from '../../kernel/index.ts';

/**
 * An outbound URL that carries keys, tokens or audit data (a cloud KMS endpoint, a webhook, a language
 * model provider, an OIDC issuer and its key set) follows the kernel's `outboundUrlProblem` rule: https://,
 * or plain http:// only to a loopback host. Throws a sentence naming `where` (the setting) otherwise.
 */
export function requireSafeUrl(where: string, url: string): URL {
  const reason = outboundUrlProblem(url);
  if (reason) throw new Error(`${where}: url ${reason === 'is not a URL' ? `"${redactUrl(url)}" ` : ''}${reason}`);
  return new URL(url);
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
    const reason = outboundUrlProblem(value);
    if (reason) throw new Error(reason);
  },
  'name',
  { value: 'https URL' },
);

/** A setting naming an outbound HTTP endpoint (format `httpsUrl`), empty by default. */
export function httpsUrlSetting(doc: string, env: string) {
  return { doc, format: httpsUrl, default: '' as string, env };
}
