import type { Test } from 'tap';
import { type Authenticator, type CredentialSource, isSvcError } from '../kernel/index.ts';

/** The request headers an authenticator reads, as a test builds them. */
export const headers = (h: Record<string, string>): CredentialSource => ({
  header: (name) => Object.entries(h).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1],
});

export interface AuthenticatorHarness {
  authenticator: Authenticator;
  /** Headers that carry a valid credential for a Human with this subject. */
  valid(subject: string): Promise<Record<string, string>>;
  /** Headers whose credential must be refused (forged, expired, malformed), each named. */
  invalid(): Promise<Array<[string, Record<string, string>]>>;
}

async function refused(t: Test, what: string, attempt: Promise<unknown>, secretParts: string[]): Promise<void> {
  try {
    await attempt;
    t.fail(`${what}: accepted`);
  } catch (err) {
    t.ok(isSvcError(err) && err.code === 'Unauthorized', `${what}: Unauthorized`);
    for (const part of secretParts)
      if (part.length > 8)
        t.notOk((err as Error).message.includes(part), `${what}: the message does not echo the credential`);
  }
}

/** The conformance suite every authenticator passes. */
export function authenticatorContract(t: Test, make: () => Promise<AuthenticatorHarness>): void {
  t.test('a valid credential gives the principal it names', async (t) => {
    const h = await make();
    const principal = await h.authenticator.authenticate(headers(await h.valid('alice')));
    t.equal(principal.subject, 'alice');
    t.equal(principal.kind, 'Human');
    t.ok(Array.isArray((principal as { groups?: string[] }).groups), 'groups is a list');
  });

  t.test('no credential at all is 401 Unauthorized', async (t) => {
    const h = await make();
    await refused(t, 'no headers', h.authenticator.authenticate(headers({})), []);
  });

  t.test('every invalid credential is 401 Unauthorized and never echoed', async (t) => {
    const h = await make();
    for (const [what, hdrs] of await h.invalid())
      await refused(t, what, h.authenticator.authenticate(headers(hdrs)), Object.values(hdrs));
  });
}
