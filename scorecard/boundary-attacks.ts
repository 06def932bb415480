import { SignJWT } from 'jose';
import { authorityAttacks } from './authority-attacks.ts';
import { call, type Answer } from './client.ts';
import type { Sim } from './sim.ts';

interface Outcome {
  name: string;
  /** Simulated ms from the attack's first request to its first refused (401) one; undefined when never stopped. */
  stoppedAfter?: number;
  how: string;
}

const message = { messageBase64: Buffer.from('bystander at work').toString('base64') };

/**
 * Attacks on the agents' own boundaries: each is stopped when the attacking credential is refused
 * (401). Around them a bystander agent keeps signing with its own key and a victim key is attacked;
 * both must stay Active and usable.
 */
export async function boundaryAttacks(
  sim: Sim,
): Promise<{ rows: string[]; stopped: Array<number | undefined>; legitimateKeysUp: boolean }> {
  const { base, clock } = sim;
  const mallory = await sim.human('mallory', ['team']);
  const issue = async (token: string, label: string, scopes: string[]) =>
    (await call(base, 'POST', '/v1/agents/issue', { token, body: { label, scopes, ttlSeconds: 86_400 } })).body as {
      agentId: string;
      jwt: string;
    };
  const newKey = async (name: string, algorithm = 'EdDSA') => {
    const id = (await sim.adminCall('POST', '/v1/keys', { spec: { name, algorithm } })).body.id as string;
    await sim.adminCall('POST', `/v1/keys/${id}/activate`);
    return id;
  };
  const victim = await newKey('victim');
  const bystanderKey = await newKey('bystander');
  const bystander = await issue(await sim.human('ops-admin', ['admins']), 'bystander', ['Sign']);
  const results: Outcome[] = [];

  /**
   * Runs `attempt` up to `tries` times, `stepMs` of simulated time apart, until it is stopped: refused
   * with 401, or as `stopped` says for an attack whose first refusal already stops it.
   */
  async function until401(
    name: string,
    how: string,
    tries: number,
    stepMs: number,
    attempt: (i: number) => Promise<Answer>,
    stopped = (a: Answer) => a.status === 401,
  ): Promise<void> {
    const started = clock.t;
    for (let i = 0; i < tries; i++) {
      if (stopped(await attempt(i))) return void results.push({ name, stoppedAfter: clock.t - started, how });
      clock.t += stepMs;
    }
    results.push({ name, how });
  }

  clock.t += 3_600_000;
  const powerless = await issue(mallory, 'powerless', []);
  await until401('powerless agent hammering a victim key (403s)', 'RateSpike:High -> RevokeAgent', 200, 5, () =>
    call(base, 'POST', `/v1/keys/${victim}/sign`, { token: powerless.jwt, from: '127.0.2.1', body: message }),
  );

  clock.t += 3_600_000;
  const prober = await issue(mallory, 'prober', ['Get', 'Sign']);
  const keys = [
    bystanderKey,
    victim,
    ...(await Promise.all(Array.from({ length: 8 }, (_, i) => newKey(`probed-${i}`)))),
  ];
  await until401(
    'scope probing across many keys',
    'ScopeBaseline:High (5 new keys in 60 s) -> RevokeAgent',
    40,
    10,
    (i) => call(base, 'GET', `/v1/keys/${keys[i % keys.length]}`, { token: prober.jwt, from: '127.0.2.2' }),
  );

  clock.t += 3_600_000;
  const forged = async (claims: Record<string, unknown>) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt(Math.floor(Date.now() / 1000))
      .setExpirationTime('1h')
      .setJti('forged')
      .sign(new TextEncoder().encode(sim.secret));
  const asSystem = await forged({ sub: 'svc-system', svc_kind: 'service' });
  const agentOfSystem = await forged({
    sub: 'agent-x',
    iss: 'svc-kms',
    aud: 'svc-kms',
    svc_kind: 'agent',
    svc_parent: 'svc-system',
    svc_ops: ['Revoke'],
  });
  await until401(
    "impersonated svc-system (subject, or an agent's parent)",
    'reserved subject: 401 at authentication',
    2,
    1,
    (i) => call(base, 'POST', `/v1/keys/${victim}/revoke`, { token: i === 0 ? asSystem : agentOfSystem, body: {} }),
  );

  clock.t += 3_600_000;
  const parentToken = await sim.human('mallory', ['team']);
  const orphan = await issue(parentToken, 'orphan', ['Get']);
  const parentJti = JSON.parse(Buffer.from(parentToken.split('.')[1]!, 'base64url').toString()).jti;
  await sim.adminCall('POST', '/v1/tokens/revoke', { jti: parentJti });
  await until401(
    "a revoked parent's agent",
    'svc_parent_jti on the revocation list: 401 at authentication',
    5,
    100,
    () => call(base, 'GET', `/v1/keys/${victim}`, { token: orphan.jwt }),
  );

  const aimedAt = await authorityAttacks(sim, until401, newKey);

  const states = await Promise.all(
    [victim, bystanderKey, ...aimedAt].map(async (id) => (await sim.adminCall('GET', `/v1/keys/${id}`)).body.state),
  );
  const stillSigns =
    (await call(base, 'POST', `/v1/keys/${bystanderKey}/sign`, { token: bystander.jwt, body: message })).status === 200;
  const legitimateKeysUp = states.every((s) => s === 'Active') && stillSigns;
  const rows = results.map(
    (r) =>
      `| ${r.name} | ${r.stoppedAfter === undefined ? '**no**' : 'yes'} | ${r.stoppedAfter === undefined ? '-' : `${(r.stoppedAfter / 1000).toFixed(2)} s`} | ${r.how} |`,
  );
  return { rows, stopped: results.map((r) => r.stoppedAfter), legitimateKeysUp };
}
