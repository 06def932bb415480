import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { defaultRules } from '../plugins/auto-responder/rules.ts';
import { boundaryAttacks } from './boundary-attacks.ts';
import { startService } from '../app/start.ts';
import type { Clock } from '../kernel/ports/clock.ts';
import { call } from './client.ts';

/**
 * `npm run scorecard`: a simulated week of benign traffic through a real service (agents and humans with
 * steady habits, an injectable clock), then six scripted attacks. For each attack: detected or not (an
 * auto-response row about the attacker, or a StepUp/Deny decision on its request) and the time to
 * response; for the benign traffic after the first (learning) day: the false-positive rate.
 * Writes its table into docs/detection.md between the scorecard markers.
 */
const SECRET = 'scorecard-secret-scorecard-secret-scorecard-secret';
const DAY = 86_400_000;
class SimClock implements Clock {
  t = Math.floor(Date.now() / DAY) * DAY; // midnight UTC today
  now = () => new Date(this.t);
}
const clock = new SimClock();
const dir = mkdtempSync(path.join(tmpdir(), 'svc-scorecard-'));
const boot = (env: Record<string, string>) =>
  startService({
    argv: [],
    clock,
    print: () => {},
    logger: { info: () => {}, warn: () => {}, error: () => {} },
    env: {
      SVC_HTTP_HOST: '127.0.0.1',
      SVC_HTTP_PORT: '0',
      SVC_AUTH_KIND: 'hmac',
      SVC_AUTH_HMAC_SECRET: SECRET,
      SVC_JOURNAL_KIND: 'rdb-embedded',
      SVC_AUDIT_KIND: 'rdb-embedded',
      SVC_RDB_EMBEDDED_JDBC_URL: path.join(dir, 'journal.db'),
      SVC_CONFIG_FILE: configFile,
      ...env,
    },
  });
// The honey key must exist before the boot that names it: make it on a first boot.
// The rules: the shipped ones, plus Low findings about agents as Alerts (a deployment choice for agent-heavy use).
const RULES = [...defaultRules(['Agent']), '*:Low -> Alert for Agent'];
// Role-based, as a deployment handing keys to agents would run it: admins reach every key, team members their own.
const ALL = [
  'Create',
  'Get',
  'Activate',
  'Revoke',
  'Destroy',
  'Sign',
  'Verify',
  'Encrypt',
  'Decrypt',
  'Rotate',
  'Compromise',
  'Query',
  'Disable',
  'Enable',
];
const BINDINGS = {
  admins: ALL,
  team: { operations: ['Create', 'Get', 'Activate', 'Sign', 'Verify'], keys: ['owner:self'] },
  readers: ['Get', 'Verify'],
};
const configFile = path.join(dir, 'svc.yaml');
writeFileSync(
  configFile,
  `autoResponse:\n  rules:\n${RULES.map((r) => `    - '${r}'`).join('\n')}\npolicy:\n  kind: role-based\n  roleBindings: ${JSON.stringify(BINDINGS)}\n`,
);
let kernel = await boot({});
let base = `http://127.0.0.1:${kernel.address!.port}`;
const human = async (sub: string, groups = ['admins']) =>
  new SignJWT({ svc_groups: groups })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(sub)
    .setJti(randomUUID())
    .setIssuedAt()
    .setExpirationTime('30d')
    .sign(new TextEncoder().encode(SECRET));
const admin = await human('ops-admin');
const adminCall = (method: string, p: string, body?: unknown) => call(base, method, p, { token: admin, body });

async function key(algorithm: string): Promise<string> {
  const id = (
    await adminCall('POST', '/v1/keys', { spec: { name: `scorecard-${algorithm}-${randomUUID()}`, algorithm } })
  ).body.id;
  await adminCall('POST', `/v1/keys/${id}/activate`);
  return id;
}
const honey = await key('AES');
await kernel.stop();
kernel = await boot({ SVC_HONEY_KEYS: honey });
base = `http://127.0.0.1:${kernel.address!.port}`;
async function agentToken(label: string, scopes: string[]): Promise<{ id: string; jwt: string }> {
  const r = await adminCall('POST', '/v1/agents/issue', { label, scopes, ttlSeconds: 86_400 });
  return { id: r.body.agentId, jwt: r.body.jwt };
}

// Benign population: four agents, each with its own key, address, operations and working hours.
const SCOPES = ['Get', 'Sign', 'Verify', 'Encrypt', 'Decrypt', 'Rotate'];
const agents = await Promise.all(
  [0, 1, 2, 3].map(async (i) => ({
    label: `worker-${i}`,
    ip: `127.0.1.${i + 1}`,
    key: await key(i % 2 ? 'EdDSA' : 'AES'),
    ops: i % 2 ? ['Sign', 'Get'] : ['Encrypt', 'Get'],
    token: { id: '', jwt: '' },
  })),
);
const plaintext = Buffer.alloc(64, 1).toString('base64');
const bodyFor = (op: string) =>
  op === 'Sign' ? { messageBase64: plaintext } : op === 'Encrypt' ? { plaintextBase64: plaintext } : undefined;
const pathFor = (op: string, k: string) => (op === 'Get' ? `/v1/keys/${k}` : `/v1/keys/${k}/${op.toLowerCase()}`);

let benignRequests = 0;
let learningEnd = 0;
for (const a of agents) a.token = await agentToken(a.label, SCOPES);
for (let day = 0; day < 7; day++) {
  for (let hour = 9; hour < 17; hour++) {
    clock.t = Math.floor(clock.t / DAY) * DAY + hour * 3_600_000;
    for (let n = 0; n < 10; n++) {
      for (const a of agents) {
        const op = a.ops[n % a.ops.length]!;
        await call(base, op === 'Get' ? 'GET' : 'POST', pathFor(op, a.key), {
          token: a.token.jwt,
          from: a.ip,
          body: bodyFor(op),
        });
        if (day > 0) benignRequests++;
      }
      clock.t += 5 * 60_000;
    }
  }
  if (day === 0) learningEnd = clock.t;
  clock.t = Math.floor(clock.t / DAY) * DAY + DAY;
}

// Attacks, each on day 8 from a fresh start of the hour; detection = an auto-response row about the attacker,
// or a StepUp/Deny decision on one of its requests.
interface Attack {
  name: string;
  actor: string;
  started: number;
}
const attacks: Attack[] = [];
const at = (hour: number) => (clock.t = Math.floor(clock.t / DAY) * DAY + hour * 3_600_000);
const [signer, encryptor, third, fourth] = agents as [
  (typeof agents)[0],
  (typeof agents)[0],
  (typeof agents)[0],
  (typeof agents)[0],
];

at(10);
attacks.push({ name: 'rate burst (100 signs in 50 s)', actor: signer.token.id, started: clock.t });
for (let i = 0; i < 100; i++) {
  await call(base, 'POST', pathFor('Sign', signer.key), {
    token: signer.token.jwt,
    from: signer.ip,
    body: bodyFor('Sign'),
  });
  clock.t += 500;
}
at(11);
attacks.push({ name: 'honey-key touch', actor: encryptor.token.id, started: clock.t });
await call(base, 'GET', `/v1/keys/${honey}`, { token: encryptor.token.jwt, from: encryptor.ip });
// A new agent encrypting under the honey key uses its material: the key is paused, not deactivated.
clock.t += 30 * 60_000;
const honeyUser = await agentToken('honey-user', SCOPES);
attacks.push({ name: 'honey-key use (a new agent encrypts under it)', actor: honeyUser.id, started: clock.t });
await call(base, 'POST', pathFor('Encrypt', honey), {
  token: honeyUser.jwt,
  from: '127.0.2.1',
  body: bodyFor('Encrypt'),
});
at(12);
attacks.push({ name: 'new source address', actor: third.token.id, started: clock.t });
await call(base, 'POST', pathFor('Encrypt', third.key), {
  token: third.token.jwt,
  from: '127.0.9.9',
  body: bodyFor('Encrypt'),
});
at(13);
attacks.push({ name: 'new operation (Rotate, never used)', actor: fourth.token.id, started: clock.t });
await call(base, 'POST', `/v1/keys/${fourth.key}/rotate`, { token: fourth.token.jwt, from: fourth.ip, body: {} });
// A fifth agent with a daytime habit of its own (Get on its key at 15:00), then used at 03:00 the next night.
at(15);
const offHours = await agentToken('night-shift', SCOPES);
const nightKey = await key('AES');
for (let i = 0; i < 5; i++) await call(base, 'GET', `/v1/keys/${nightKey}`, { token: offHours.jwt, from: '127.0.1.9' });
clock.t += DAY;
at(3);
attacks.push({ name: 'off-hours use (03:00 UTC)', actor: offHours.id, started: clock.t });
await call(base, 'GET', `/v1/keys/${nightKey}`, { token: offHours.jwt, from: '127.0.1.9' });
at(14);
attacks.push({ name: 'scope probing (keys never touched)', actor: fourth.token.id, started: clock.t });
for (const a of [signer, encryptor, third])
  await call(base, 'GET', `/v1/keys/${a.key}`, { token: fourth.token.jwt, from: fourth.ip });

const boundary = await boundaryAttacks({ base, secret: SECRET, clock, human, adminCall });

// Read the audit trail back.
async function records(query: string): Promise<any[]> {
  const out: any[] = [];
  for (let offset = 0; ; offset += 1000) {
    const page = (await adminCall('GET', `/v1/audit?${query}&limit=1000&offset=${offset}`)).body;
    out.push(...page.records);
    if (!page.hasMore) return out;
  }
}
const responses = await records('actor=svc-system');
const ends = attacks.map((a) =>
  Math.min(...attacks.filter((b) => b.started > a.started).map((b) => b.started), Number.MAX_SAFE_INTEGER),
);
const results: string[] = [];
for (const [i, attack] of attacks.entries()) {
  const inWindow = (r: any) => Date.parse(r.occurredAt) >= attack.started && Date.parse(r.occurredAt) < ends[i]!;
  const auto = responses.filter((r) => r.context['auto.response.actor'] === attack.actor && inWindow(r));
  const own = (await records(`actor=${attack.actor}`)).filter(
    (r) => inWindow(r) && ['StepUp', 'Deny'].includes(r.context['outcome.decision']),
  );
  const times = [...auto.map((r) => Date.parse(r.occurredAt)), ...own.map((r) => Date.parse(r.occurredAt))].sort(
    (x, y) => x - y,
  );
  const decisions = ['StepUp', 'Deny'].flatMap((d) => {
    const hits = own.filter((r) => r.context['outcome.decision'] === d);
    return hits.length
      ? [
          `risk ${d} x${hits.length} (max score ${Math.max(...hits.map((r) => Number(r.context['risk.score']))).toFixed(2)})`,
        ]
      : [];
  });
  const how = [...new Set(auto.map((r) => r.context['auto.response.rule'])), ...decisions].join('; ');
  results.push(
    `| ${attack.name} | ${times.length ? 'yes' : '**no**'} | ${times.length ? `${((times[0]! - attack.started) / 1000).toFixed(1)} s` : '-'} | ${how || '-'} |`,
  );
}
// The keys the auto-responder acted on: paused (Active and disabled), never deactivated, and a Human's
// Enable restores each. An auto-response row names its key as key:<id> and its action last in its rule.
const pausedKeys = [
  ...new Set(
    responses
      .filter((r) => /:(Disable|Revoke|Deactivate)$/.test(r.context['auto.response.rule'] ?? ''))
      .map((r) => String(r.resource).replace(/^key:/, '')),
  ),
];
let keysPaused = pausedKeys.length > 0;
let keysRestored = pausedKeys.length > 0;
for (const id of pausedKeys) {
  const before = (await adminCall('GET', `/v1/keys/${id}`)).body;
  keysPaused &&= before.state === 'Active' && before.enabled === false;
  const enabled = await adminCall('POST', `/v1/keys/${id}/enable`);
  const after = (await adminCall('GET', `/v1/keys/${id}`)).body;
  keysRestored &&= enabled.status === 200 && after.state === 'Active' && after.enabled === true;
}
// False positives: responses or StepUp/Deny about benign agents after the learning day, before the attacks.
const attacksStart = Math.min(...attacks.map((a) => a.started));
const benignAlarms = responses.filter(
  (r) =>
    Date.parse(r.occurredAt) > learningEnd &&
    Date.parse(r.occurredAt) < attacksStart &&
    r.context['auto.response.actor'].startsWith('agent-'),
).length;
const benignGated = (
  await records(`since=${new Date(learningEnd).toISOString()}&until=${new Date(attacksStart).toISOString()}`)
).filter((r) => r.principal.kind === 'Agent' && r.context['outcome.decision'] !== 'Allow').length;
const table = [
  '<!-- scorecard:start -->',
  `Scorecard (\`npm run scorecard\`, ${new Date().toISOString().slice(0, 10)}): four agents with steady habits (own key, own address, two`,
  'operations, 09:00-17:00 UTC, 10 requests an hour each; one token each ' +
    'for the whole simulated week, as the service checks',
  'token expiry against real time) for a simulated week, then six ' +
    'attacks. Role-based policy (admins reach every key, team',
  'members their own: `owner:self`, readers may Get and Verify any key), shipped weights and',
  `rules plus one line (\`${RULES.at(-1)}\`); detection is an auto-response row about the attacker or a StepUp/Deny on its request.`,
  '',
  '| attack | detected | time to response | how |',
  '|---|---|---|---|',
  ...results,
  '',
  `Keys the auto-responder acted on: ${pausedKeys.length}; ${keysPaused ? 'each left Active and disabled (a reversible pause), none deactivated' : '**a key was deactivated or left enabled**'}; ${keysRestored ? 'an Enable by a Human (an admin) restored each' : '**an Enable did not restore a key**'}.`,
  '',
  `False positives on benign traffic after the first (learning) day: ${benignAlarms} auto-response rows and ${benignGated} refused requests`,
  `out of ${benignRequests} benign requests (${(((benignAlarms + benignGated) / benignRequests) * 100).toFixed(2)}%).`,
  '',
  "Attacks on the agents' own boundaries (simulated time, after the " +
    'attacks above): stopped means the attacking credential',
  'is refused with 401, or, for an attack whose first refusal ends it ' +
    '(authority the agent never had), with 403. A bystander',
  'agent signs with its own key throughout, and the attacked keys are innocent ones.',
  '',
  '| attack | stopped | time to stop | how |',
  '|---|---|---|---|',
  ...boundary.rows,
  '',
  `Legitimate keys after these attacks: ${boundary.legitimateKeysUp ? 'all Active, and the bystander still signs' : '**a legitimate key went down or the bystander was refused**'}.`,
  '<!-- scorecard:end -->',
].join('\n');
// The goals: keys paused and restored, every boundary attack stopped within 1 s of simulated time, no legitimate
// key down, no false positive.
const goalsMet =
  keysPaused &&
  keysRestored &&
  boundary.stopped.every((ms) => ms !== undefined && ms <= 1000) &&
  boundary.legitimateKeysUp &&
  benignAlarms + benignGated === 0;
const docPath = path.resolve(import.meta.dirname, '../docs/detection.md');
const doc = readFileSync(docPath, 'utf8');
// SCORECARD_CHECK=1 (the test suite): check the goals without rewriting the document.
if (process.env.SCORECARD_CHECK !== '1')
  writeFileSync(
    docPath,
    doc.includes('<!-- scorecard:start -->')
      ? doc.replace(/<!-- scorecard:start -->[\s\S]*<!-- scorecard:end -->/, table)
      : `${doc}\n## Scorecard\n\n${table}\n`,
  );
process.stdout.write(`${table}\n`);
if (!goalsMet) process.exitCode = 1;
await kernel.stop();
