import type { Pool } from 'undici';
import { OPERATIONS } from '../../../kernel/model/operation.ts';
import { mintToken, TEST_SECRET, unsignedToken } from '../tokens.ts';
import { send, type Answer, type FuzzRequest } from './transport.ts';

/**
 * The people and keys of a fuzz run: Humans, a Service and agents with hmac tokens under a role-based
 * policy, and pools of keys of every algorithm, kept up to date from the answers (a key the
 * auto-responder revoked, an agent it cut off, are replaced by valid requests of the mix).
 */
export const FUZZ_ENV: Record<string, string> = {
  SVC_AUTH_KIND: 'hmac',
  SVC_AUTH_HMAC_SECRET: TEST_SECRET,
  SVC_POLICY_KIND: 'role-based',
  SVC_POLICY_ROLE_BINDINGS: JSON.stringify({
    'kms-admins': [...OPERATIONS],
    'agent-admins': { operations: ['Query', 'Revoke'], agents: ['*'] },
    signers: ['Create', 'Get', 'Activate', 'Sign', 'Verify'],
    auditors: ['Query'],
    'agent-auditors': { operations: ['Query'], agents: ['*'] },
    // The Service may use only its tenant's keys: every call of it reads the key's facts for the policy.
    apps: { operations: ['Create', 'Get', 'Activate', 'Encrypt', 'Decrypt', 'Wrap', 'Unwrap'], keys: ['owner:self'] },
  }),
  // One principal sends thousands of calls a second here; the limiter stays in the chain with limits the
  // run does not reach, so every answer is about the request itself.
  SVC_RATE_LIMIT_RPS: '1000000000',
  SVC_RATE_LIMIT_BURST: '1000000000',
};

export type Algorithm = 'AES' | 'RSA' | 'EC' | 'EdDSA' | 'HMAC';
/** `version`: the current version, once a rotation answered it (trim takes keys rotated at least once). */
export interface KeyRef {
  id: string;
  algorithm: Algorithm;
  spec: Record<string, unknown>;
  owner: Role;
  version?: number;
}
export type Role = 'admin' | 'keeper' | 'signer' | 'auditor' | 'mallory' | 'service';
export interface AgentRef {
  agentId: string;
  jti: string;
  jwt: string;
  parent: Role;
  scopes: string[];
}

/** Key specs of every algorithm and size; RSA is last so that the mix can make it rarer (key generation is slow). */
export const SPECS: Array<Record<string, unknown> & { algorithm: Algorithm }> = [
  { algorithm: 'AES', sizeBits: 128 },
  { algorithm: 'AES', sizeBits: 192 },
  { algorithm: 'AES', sizeBits: 256 },
  { algorithm: 'EC', curve: 'P-256' },
  { algorithm: 'EC', curve: 'P-384' },
  { algorithm: 'EC', curve: 'P-521' },
  { algorithm: 'EC', curve: 'secp256k1' },
  { algorithm: 'EdDSA', curve: 'Ed25519' },
  { algorithm: 'EdDSA', curve: 'Ed448' },
  { algorithm: 'HMAC', sizeBits: 256 },
  { algorithm: 'HMAC', sizeBits: 384 },
  { algorithm: 'HMAC', sizeBits: 512 },
  { algorithm: 'RSA', sizeBits: 2048 },
  { algorithm: 'RSA', sizeBits: 3072 },
];

const GROUPS: Record<Role, { sub: string; groups: string[]; kind?: 'service'; tenant?: string }> = {
  admin: { sub: 'alice', groups: ['kms-admins'] },
  keeper: { sub: 'bob', groups: ['kms-admins', 'agent-admins', 'agent-auditors'] },
  signer: { sub: 'carol', groups: ['signers'] },
  auditor: { sub: 'dave', groups: ['auditors', 'agent-auditors'] },
  mallory: { sub: 'mallory', groups: ['signers'] },
  service: { sub: 'billing', groups: ['apps'], kind: 'service', tenant: 'billing' },
};

const RING = 8;

export class Cast {
  readonly tokens = {} as Record<Role, string>;
  /** Credentials that must all be refused with 401. */
  readonly badTokens: Array<{ name: string; header: string }> = [];
  /** Active keys Humans (and the Service, its own) use for crypto; never destroyed by the mix. */
  readonly core: KeyRef[] = [];
  /** Active keys the agents use: an agent the auto-responder cuts off may take its keys with it. */
  readonly agentKeys: KeyRef[] = [];
  /** Keys the mix made and activated: the lifecycle calls (rotate, revoke, compromise, destroy) take these. */
  readonly scratch: KeyRef[] = [];
  readonly preActive: KeyRef[] = [];
  /** Ids of keys no longer usable (destroyed, compromised, revoked), for requests that must be refused. */
  readonly retired: string[] = [];
  readonly agents: AgentRef[] = [];
  readonly retiredAgents: AgentRef[] = [];
  readonly samples = new Map<
    string,
    {
      ciphertexts: Array<{ c: string; context?: Record<string, string> }>;
      wrapped: string[];
      signatures: Array<{ m: string; s: string }>;
    }
  >();
  /**
   * The event loop delay the service reported at each scrape of its /metrics during the run (ms; each
   * scrape resets its histogram, so each pair covers the time since the scrape before).
   */
  readonly loopDelays: Array<{ p99: number; max: number }> = [];
  /** Valid requests to send before drawing again: activations of created keys, replacements. */
  readonly forced: FuzzRequest[] = [];
  /** Import tokens answered by POST /v1/keys/import-parameters, for imports of garbage material. */
  readonly importTokens: string[] = [];
  /** Calls of POST /v1/keys/import-parameters so far: each makes an RSA-3072 key, so a run makes a handful. */
  importParameterCalls = 0;
  private agentSeq = 0;
  private keySeq = 0;

  constructor(readonly base: string) {}

  auth(role: Role): Record<string, string> {
    return { authorization: `Bearer ${this.tokens[role]}` };
  }

  sampleOf(id: string) {
    let s = this.samples.get(id);
    if (!s) this.samples.set(id, (s = { ciphertexts: [], wrapped: [], signatures: [] }));
    return s;
  }

  remember<T>(list: T[], item: T): void {
    list.push(item);
    if (list.length > RING) list.shift();
  }

  /** A key answered as unusable (IllegalOperation, or gone): out of its pool, and a new one of its spec is made. */
  retire(id: string): void {
    for (const pool of [this.core, this.agentKeys, this.scratch]) {
      const i = pool.findIndex((k) => k.id === id);
      if (i < 0) continue;
      const [gone] = pool.splice(i, 1);
      this.retired.push(id);
      if (pool !== this.scratch)
        this.forced.push(this.createRequest(gone!.owner, gone!.spec, pool === this.core ? this.core : this.agentKeys));
    }
  }

  /** An agent answered 401 (revoked by the auto-responder, or stepped up): replaced by its parent. */
  retireAgent(agentId: string): void {
    const i = this.agents.findIndex((a) => a.agentId === agentId);
    if (i < 0) return;
    const [gone] = this.agents.splice(i, 1);
    this.retiredAgents.push(gone!);
    this.forced.push(this.issueRequest(gone!.parent, gone!.scopes));
  }

  /** POST /v1/keys; the created key is activated by a forced request and then joins `pool`. */
  createRequest(owner: Role, spec: Record<string, unknown>, pool: KeyRef[] = this.scratch): FuzzRequest {
    return {
      route: 'POST /v1/keys',
      kind: 'valid',
      method: 'POST',
      path: '/v1/keys',
      headers: this.auth(owner),
      body: JSON.stringify({
        spec: { name: `fuzz-${String(spec.algorithm).toLowerCase()}-${++this.keySeq}`, ...spec },
      }),
      after: (a) => {
        if (a.status !== 201) return;
        const key: KeyRef = { id: a.json.id, algorithm: spec.algorithm as Algorithm, spec, owner };
        this.preActive.push(key);
        this.forced.push({
          route: 'POST /v1/keys/:id/activate',
          kind: 'valid',
          method: 'POST',
          path: `/v1/keys/${key.id}/activate`,
          headers: this.auth(owner),
          after: (b) => {
            const at = this.preActive.indexOf(key);
            if (at >= 0) this.preActive.splice(at, 1);
            if (b.status === 200) pool.push(key);
          },
        });
      },
    };
  }

  /** POST /v1/agents/issue by `parent`; the agent joins the pool. */
  issueRequest(parent: Role, scopes: string[]): FuzzRequest {
    return {
      route: 'POST /v1/agents/issue',
      kind: 'valid',
      method: 'POST',
      path: '/v1/agents/issue',
      headers: this.auth(parent),
      body: JSON.stringify({ label: `fuzz agent ${++this.agentSeq}`, scopes, ttlSeconds: 3600 }),
      after: (a) => {
        if (a.status === 200 || a.status === 201)
          this.agents.push({ agentId: a.json.agentId, jti: a.json.jti, jwt: a.json.jwt, parent, scopes });
      },
    };
  }

  /** Mints the credentials and makes the first keys and agents (not counted in the run). */
  async setUp(pool: Pool): Promise<void> {
    const now = Math.floor(Date.now() / 1000);
    for (const [role, who] of Object.entries(GROUPS) as Array<[Role, (typeof GROUPS)[Role]]>) {
      const claims = {
        sub: who.sub,
        svc_groups: who.groups,
        ...(who.kind ? { svc_kind: who.kind, svc_tenant: who.tenant } : {}),
      };
      this.tokens[role] = await mintToken(claims, { ttlSeconds: 6 * 3600 });
    }
    const admin = { sub: 'alice', svc_groups: ['kms-admins'] };
    const [h, , sig] = this.tokens.admin.split('.');
    const forgedPayload = Buffer.from(JSON.stringify({ ...admin, sub: 'root', exp: now + 600 })).toString('base64url');
    const bad: Array<[string, string]> = [
      ['none', ''],
      ['not bearer', `Basic ${Buffer.from('alice:password').toString('base64')}`],
      ['garbage', 'Bearer not.a.jwt'],
      ['expired', `Bearer ${await mintToken(admin, { iat: now - 7200, ttlSeconds: 60 })}`],
      [
        'wrong secret',
        `Bearer ${await mintToken(admin, { secret: 'another-secret-that-is-long-enough-for-hs256-xyz' })}`,
      ],
      ['alg none', `Bearer ${unsignedToken(admin)}`],
      ['tampered payload', `Bearer ${h}.${forgedPayload}.${sig}`],
      [
        'unregistered agent',
        `Bearer ${await mintToken({ sub: 'agent-00000000-0000-4000-8000-00000000f022', svc_kind: 'agent', iss: 'svc-kms', aud: 'svc-kms', svc_parent: 'alice', svc_ops: ['Encrypt'], svc_groups: ['kms-admins'] })}`,
      ],
      ['NUL in subject', `Bearer ${await mintToken({ sub: 'ali\u0000ce', svc_groups: ['kms-admins'] })}`],
      ['svc-system subject', `Bearer ${await mintToken({ sub: 'svc-system', svc_groups: ['kms-admins'] })}`],
      ['unknown kind', `Bearer ${await mintToken({ ...admin, svc_kind: 'robot' })}`],
    ];
    for (const [name, header] of bad) this.badTokens.push({ name, header });

    const run = async (req: FuzzRequest): Promise<Answer> => {
      const a = await send(pool, req);
      req.after?.(a);
      return a;
    };
    const setUpKeys = async (owner: Role, specs: Array<Record<string, unknown>>, into: KeyRef[]) => {
      for (const spec of specs) {
        const a = await run(this.createRequest(owner, spec, into));
        if (a.status !== 201)
          throw new Error(`fuzz set-up: create ${JSON.stringify(spec)} answered ${a.status} ${a.text}`);
      }
    };
    await setUpKeys('admin', SPECS, this.core);
    await setUpKeys(
      'service',
      [
        { algorithm: 'AES', sizeBits: 256 },
        { algorithm: 'AES', sizeBits: 128 },
      ],
      this.core,
    );
    await setUpKeys(
      'admin',
      [{ algorithm: 'AES' }, { algorithm: 'AES' }, { algorithm: 'EdDSA' }, { algorithm: 'EC' }],
      this.agentKeys,
    );
    // Exportable keys, for export: used for crypto like the others.
    await setUpKeys(
      'admin',
      [
        { algorithm: 'AES', exportable: true },
        { algorithm: 'EC', curve: 'P-256', exportable: true },
        { algorithm: 'HMAC', exportable: true },
        { algorithm: 'EdDSA', exportable: true },
      ],
      this.core,
    );
    await setUpKeys('service', [{ algorithm: 'AES', exportable: true }], this.core);
    await setUpKeys('admin', [{ algorithm: 'AES' }, { algorithm: 'EC' }, { algorithm: 'HMAC' }], this.scratch);
    for (const scopes of [
      ['Encrypt', 'Decrypt', 'Wrap', 'Unwrap', 'Get'],
      ['Encrypt', 'Decrypt'],
      ['Get'],
      ['Revoke', 'Destroy', 'Get'],
    ])
      this.forced.push(this.issueRequest('admin', scopes));
    for (const scopes of [['Sign', 'Verify'], ['Sign', 'Verify', 'Get'], []])
      this.forced.push(this.issueRequest('signer', scopes));
    while (this.forced.length) {
      const a = await run(this.forced.shift()!);
      if (a.status >= 300) throw new Error(`fuzz set-up: answered ${a.status} ${a.text}`);
    }
  }
}
