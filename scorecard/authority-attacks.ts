import { SignJWT } from 'jose';
import { call, type Answer } from './client.ts';
import type { Sim } from './sim.ts';

/** Runs attacks like boundaryAttacks' `untilStopped`: attempts until `stopped(answer)`, simulated ms apart. */
export type UntilStopped = (
  name: string,
  how: string,
  tries: number,
  stepMs: number,
  attempt: (i: number) => Promise<Answer>,
  stopped?: (a: Answer) => boolean,
) => Promise<void>;

const mac = (i: number) => ({
  messageBase64: Buffer.from(`ledger line ${i}`).toString('base64'),
  signatureBase64: Buffer.alloc(32, i).toString('base64'),
});

/**
 * Agents reaching for authority they were never given: a token re-minted with every operation, a rogue
 * agent locking its parent out of the kill switch, an agent ending a key for good, and a reader's agent
 * flooding another user's HMAC key with wrong MACs. Each must be stopped with no legitimate key lost;
 * the keys they aim at are returned for the legitimate-keys check.
 */
export async function authorityAttacks(
  sim: Sim,
  untilStopped: UntilStopped,
  newKey: (name: string, algorithm?: string) => Promise<string>,
): Promise<string[]> {
  const { base, clock } = sim;
  const issue = async (token: string, label: string, scopes: string[]) =>
    (await call(base, 'POST', '/v1/agents/issue', { token, body: { label, scopes, ttlSeconds: 86_400 } })).body as {
      agentId: string;
      jwt: string;
      jti: string;
    };
  const target = await newKey('authority-target');

  clock.t += 3_600_000;
  // The agent secret re-mints a live agent's token: every operation, the admins group, a day's expiry.
  const mallory = await sim.human('mallory', ['team']);
  const modest = await issue(mallory, 'modest', ['Get']);
  const now = Math.floor(Date.now() / 1000);
  const reMinted = await new SignJWT({
    svc_kind: 'agent',
    svc_parent: 'mallory',
    svc_ops: ['Get', 'Compromise', 'Destroy', 'Sign', 'Revoke'],
    svc_groups: ['admins'],
  })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer('svc-kms')
    .setAudience('svc-kms')
    .setSubject(modest.agentId)
    .setJti(modest.jti)
    .setIssuedAt(now)
    .setExpirationTime(now + 86_000)
    .sign(new TextEncoder().encode(sim.secret));
  await untilStopped(
    'a re-minted agent token claiming every operation and the admins group',
    'the registry row is the only authority: 403 from the first call',
    3,
    10,
    () => call(base, 'POST', `/v1/keys/${target}/revoke`, { token: reMinted, from: '127.0.3.1', body: {} }),
    (a) => a.status === 403,
  );

  clock.t += 3_600_000;
  // A rogue agent's floods drain its parent's rate-limit bucket; the parent's kill switch must still work.
  const parent = await sim.human('flood-parent', ['admins']);
  const rogue = await issue(parent, 'rogue', ['Sign']);
  // It floods its own key: an agent's High finding may still take a key it used down (not the point here).
  const rogueKey = await newKey('rogue-own');
  const items = Array.from({ length: 1000 }, () => ({ messageBase64: Buffer.from('x').toString('base64') }));
  let revoked = false;
  await untilStopped(
    "a rogue agent's 1,000-item batches draining its parent's rate limit, then its parent's kill switch",
    'kill switch never rate limited: 200 while the parent is throttled',
    10,
    10,
    async () => {
      if (revoked)
        return call(base, 'POST', `/v1/keys/${rogueKey}/sign`, {
          token: rogue.jwt,
          from: '127.0.3.2',
          body: { messageBase64: 'eA==' },
        });
      const flood = await call(base, 'POST', `/v1/keys/${rogueKey}/sign`, {
        token: rogue.jwt,
        from: '127.0.3.2',
        body: { items },
      });
      if (flood.status === 429)
        revoked = (await call(base, 'POST', `/v1/agents/${rogue.agentId}/revoke`, { token: parent })).status === 200;
      return flood;
    },
  );

  clock.t += 3_600_000;
  // An agent allowed Compromise and Rotate tries to end its owner's key, or to turn its rotation schedule off.
  const owner = await sim.human('key-owner', ['admins']);
  const ender = await issue(owner, 'ender', ['Get', 'Compromise', 'Rotate']);
  await untilStopped(
    "an agent compromising its owner's key",
    'Compromise is refused to agents whatever their scopes: 403',
    2,
    10,
    () =>
      call(base, 'POST', `/v1/keys/${target}/compromise`, {
        token: ender.jwt,
        from: '127.0.3.3',
        body: { reason: 'I say so' },
      }),
    (a) => a.status === 403,
  );
  await untilStopped(
    "an agent with Rotate turning its owner's rotation schedule off",
    'a policy change needs AddAttribute: 403',
    2,
    10,
    () =>
      call(base, 'POST', `/v1/keys/${target}/rotate`, {
        token: ender.jwt,
        from: '127.0.3.3',
        body: { policy: 'Manual' },
      }),
    (a) => a.status === 403,
  );

  clock.t += 3_600_000;
  // A read-only user's agent sends wrong MACs to another user's HMAC key: only valid answers use material.
  const hmacKey = await newKey('ledger-mac', 'HMAC');
  // Read-only on other users' keys (readers: Get, Verify); Create only on its own, which lets it issue agents.
  const reader = await sim.human('read-only', ['team', 'readers']);
  const guesser = await issue(reader, 'guesser', ['Verify']);
  await untilStopped(
    "a reader's agent sending 95 wrong MACs to another user's HMAC key",
    'RateSpike:High -> RevokeAgent; the key was never used (no valid answer), so it stays Active',
    95,
    5,
    (i) => call(base, 'POST', `/v1/keys/${hmacKey}/verify`, { token: guesser.jwt, from: '127.0.3.4', body: mac(i) }),
  );
  return [target, hmacKey];
}
