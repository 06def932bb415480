import { ApiClient } from './client.ts';
import { startTestService, type TestService } from './service.ts';
import { mintToken, TEST_SECRET } from './tokens.ts';

// A service where aliases cross owners: two owners (alice, mallory), each limited by role-based policy to
// the keys they own, and carol, bound to nothing at all. Alice's key `payroll` is named by the guessable
// alias alias/payroll-prod, so tests can ask, as mallory or carol, what an alias they may not use gives away.
export const OWN_OPS = ['Create', 'Activate', 'Get', 'Encrypt', 'Decrypt', 'AddAttribute'];

export async function ownersService(): Promise<{
  svc: TestService;
  alice: ApiClient;
  mallory: ApiClient;
  carol: ApiClient;
  secretKey: string;
  mallorysKey: string;
}> {
  const svc = await startTestService({
    SVC_AUTH_KIND: 'hmac',
    SVC_AUTH_HMAC_SECRET: TEST_SECRET,
    SVC_RISK_ENABLED: 'false',
    SVC_POLICY_KIND: 'role-based',
    SVC_POLICY_SUBJECT_BINDINGS: JSON.stringify({
      alice: { operations: OWN_OPS, keys: ['owner:self'] },
      mallory: { operations: OWN_OPS, keys: ['owner:self'] },
      ops: ['Administer', 'Query'],
    }),
  });
  const as = async (sub: string) =>
    new ApiClient(svc.url, {
      Authorization: `Bearer ${await mintToken({ sub, svc_kind: 'human' }, { ttlSeconds: 3600 })}`,
    });
  const alice = await as('alice');
  const mallory = await as('mallory');
  const carol = await as('carol');
  const secretKey = await alice.key({ algorithm: 'AES', name: 'payroll' });
  const put = await alice.call('PUT', '/v1/aliases/alias%2Fpayroll-prod', { keyId: secretKey });
  if (put.status !== 200) throw new Error(`alias not created: ${put.status} ${JSON.stringify(put.body)}`);
  const mallorysKey = await mallory.key({ algorithm: 'AES', name: 'mallory-key' });
  return { svc, alice, mallory, carol, secretKey, mallorysKey };
}
