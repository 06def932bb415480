import { Type } from '@sinclair/typebox';
import { outboundUrlProblem, redactUrl } from '../../kernel/index.ts';

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
 * A setting naming an outbound HTTP endpoint, empty by default: the configuration loader checks it by
 * the rule above (format `outbound-url`), so a bad value fails the boot with the setting's key and
 * variable, whichever plugin declares it.
 */
export function outboundUrlSetting(description: string, env?: string) {
  return Type.String({ description, default: '', format: 'outbound-url', ...(env ? { env } : {}) });
}
