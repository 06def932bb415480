import { SvcError } from '../errors.ts';
import type { Principal } from '../model/index.ts';
import type { Authenticator, CredentialSource } from '../ports/authenticator.ts';
import { CALLER_TEXT_RULE, isCallerText } from '../model/caller-text.ts';
import { reservedSubjectProblem } from '../text/caller-text.ts';

/**
 * Authentication as every door does it: the authenticator's principal, except that subjects reading as
 * the service's own are reserved. A credential whose subject (or agent's parent) reads as `svc-system`
 * after NFKC, dash and case folding (`SVC-SYSTEM`, `svc-system `, `svc\u2010system`) is 401: only code
 * inside the service acts as svc-system. A Human or Service subject reading as an agent id is 401 too:
 * agents authenticate only through the agent registry. Subjects and groups holding a control, separator
 * or invisible character are 401: they would be written to the audit trail as the caller's name.
 */
export async function authenticate(authenticator: Authenticator, source: CredentialSource): Promise<Principal> {
  const principal = await authenticator.authenticate(source);
  const named = principal.kind === 'Agent' ? principal.parent : principal.subject;
  const reserved = reservedSubjectProblem(named);
  if (reserved)
    throw new SvcError('Unauthorized', principal.kind === 'Agent' ? `the agent's parent: ${reserved}` : reserved);
  const groups = principal.kind === 'Agent' ? principal.parentGroups : principal.groups;
  if (
    !isCallerText(principal.subject) ||
    (named !== principal.subject && !isCallerText(named)) ||
    !groups.every(isCallerText)
  ) {
    throw new SvcError('Unauthorized', `the credential's subject and groups ${CALLER_TEXT_RULE}`);
  }
  // A token's claims are input too: a NUL (a control character, refused above in subjects and groups)
  // in a purpose or tenant would reach the database as an agent's purpose or a key's tenant.
  const other =
    principal.kind === 'Agent' ? principal.purpose : principal.kind === 'Service' ? principal.tenant : undefined;
  if (other?.includes('\u0000'))
    throw new SvcError('Unauthorized', 'the credential names a purpose or tenant with a NUL character');
  return principal;
}
