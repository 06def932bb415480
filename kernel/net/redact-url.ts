/** Query (or JDBC `;name=value`) parameters whose value is a credential, by a part of their name. */
const CREDENTIAL_PARAMETER = /pass|pwd|token|secret|key|signature|^sig$|auth|credential|session/i;

/**
 * The text with every credential written into a URL replaced by `***`, for messages, logs and
 * `--print-config`: the password of every `scheme://user:password@` (a comma list of URLs has one per
 * entry) and the value of every parameter named like a credential (`?token=`, `&access_token=`,
 * `;password=`, `#signature=` ...). The password runs to the last `@` before the host's `/` or a
 * blank, so an unencoded `@` in it is hidden too; hiding too much is the safe side.
 */
export function redactUrl(text: string): string {
  return text
    .replace(/(\/\/[^\s:@/]*):[^\s/]*@/g, '$1:***@')
    .replace(/([?&#;])([^=&#;\s,]+)=([^&#;\s,]*)/g, (all, separator: string, name: string) =>
      CREDENTIAL_PARAMETER.test(name) ? `${separator}${name}=***` : all,
    );
}
