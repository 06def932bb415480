import { type Authenticator, type CredentialSource, type Principal, SvcError } from '../../../kernel/index.ts';

const SUBJECT = /^[\x21-\x7e][\x20-\x7e]{0,255}$/;

/** Workstation mode: the X-Svc-User header names a Human; X-Svc-Groups lists groups. Bearer tokens are ignored. */
export class DevAuthenticator implements Authenticator {
  async authenticate(request: CredentialSource): Promise<Principal> {
    const subject = request.header('X-Svc-User')?.trim();
    if (!subject) throw new SvcError('Unauthorized', 'missing X-Svc-User header (auth.kind is dev)');
    if (!SUBJECT.test(subject))
      throw new SvcError('Unauthorized', 'X-Svc-User must be 1..256 printable ASCII characters');
    const groups = (request.header('X-Svc-Groups') ?? '')
      .split(',')
      .map((g) => g.trim())
      .filter(Boolean);
    return { kind: 'Human', subject, groups };
  }
}
