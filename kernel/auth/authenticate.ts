import { SvcError } from '../errors.ts';
import { SYSTEM_PRINCIPAL, type Principal } from '../model/index.ts';
import { nulCharacterError } from '../operations/nul-characters.ts';
import type { Authenticator, CredentialSource } from '../ports/authenticator.ts';

/**
 * Authentication as every door does it: the authenticator's principal, except that the subject of the
 * internal actors (`svc-system`) is reserved. A credential naming it, as its subject or as an agent's
 * parent, is 401: only code inside the service acts as svc-system.
 */
export async function authenticate(authenticator: Authenticator, source: CredentialSource): Promise<Principal> {
  const principal = await authenticator.authenticate(source);
  if (principal.subject === SYSTEM_PRINCIPAL.subject || (principal.kind === 'Agent' && principal.parent === SYSTEM_PRINCIPAL.subject)) {
    throw new SvcError('Unauthorized', `the subject ${SYSTEM_PRINCIPAL.subject} is reserved for the service itself`);
  }
  // A token's claims are input too: a NUL in a subject, group or purpose would reach the database as
  // a key's owner or an agent's parent.
  const { credential: _credential, ...claims } = principal;
  if (nulCharacterError(claims)) throw new SvcError('Unauthorized', 'the credential names a subject, group or purpose with a NUL character');
  return principal;
}
