import type { Prng } from './prng.ts';
import { SPECS, type AgentRef, type Algorithm, type Cast, type KeyRef, type Role } from './cast.ts';
import type { Answer, FuzzRequest } from './transport.ts';

/**
 * Well-formed, authorized calls of every route. "Valid" is about the request: the answer may still be a
 * 4xx when the mix raced itself (a key destroyed between two calls) or the auto-responder acted.
 */
type Maker = (cast: Cast, rnd: Prng) => FuzzRequest;

const SIGNING: Algorithm[] = ['RSA', 'EC', 'EdDSA', 'HMAC'];
const ASYMMETRIC: Algorithm[] = ['RSA', 'EC', 'EdDSA'];
const b64 = (b: Buffer) => b.toString('base64');

interface Actor {
  headers: Record<string, string>;
  agent?: AgentRef;
}

function request(
  route: string,
  method: string,
  path: string,
  actor: Actor,
  body?: unknown,
  after?: (a: Answer) => void,
): FuzzRequest {
  return {
    route,
    kind: 'valid',
    method,
    path,
    headers: actor.headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    ...(after ? { after } : {}),
  };
}

/**
 * Someone allowed `op` on a key of `algorithms`, and that key: a Human, the Service on its own keys, or an agent with
 * the scope on its keys.
 */
function keyUser(
  cast: Cast,
  rnd: Prng,
  op: string,
  algorithms: Algorithm[],
  has?: (k: KeyRef) => boolean,
): { actor: Actor; key: KeyRef } | undefined {
  const fits = (k: KeyRef) => algorithms.includes(k.algorithm) && (!has || has(k));
  const choices: Array<() => { actor: Actor; key: KeyRef } | undefined> = [
    () => {
      const keys = cast.core.filter((k) => fits(k) && k.owner !== 'service');
      const role: Role =
        ['Sign', 'Verify', 'Get'].includes(op) && rnd.chance(0.5) ? 'signer' : rnd.pick(['admin', 'keeper'] as Role[]);
      return keys.length ? { actor: { headers: cast.auth(role) }, key: rnd.pick(keys) } : undefined;
    },
    () => {
      const keys = cast.core.filter((k) => fits(k) && k.owner === 'service');
      return keys.length ? { actor: { headers: cast.auth('service') }, key: rnd.pick(keys) } : undefined;
    },
    () => {
      const agents = cast.agents.filter((a) => a.scopes.includes(op));
      const keys = cast.agentKeys.filter(fits);
      if (!agents.length || !keys.length) return undefined;
      const agent = rnd.pick(agents);
      return { actor: { headers: { authorization: `Bearer ${agent.jwt}` }, agent }, key: rnd.pick(keys) };
    },
  ];
  const first = rnd.int(0, choices.length - 1);
  for (let i = 0; i < choices.length; i++) {
    const got = choices[(first + i) % choices.length]!();
    if (got) return got;
  }
  return undefined;
}

/**
 * Keeps the pools honest: an agent whose token is refused (revoked by the auto-responder) is replaced, a
 * key answered unusable is replaced. A risk decision (StepUpRequired, a risk Deny) is about one call, so
 * the agent stays.
 */
function watch(cast: Cast, key: KeyRef, actor: Actor, onOk?: (a: Answer) => void): (a: Answer) => void {
  return (a) => {
    if (actor.agent && (a.status === 401 || a.status === 403)) {
      if (a.json?.error === 'Unauthorized') cast.retireAgent(actor.agent.agentId);
    } else if (a.status === 404 || a.status === 409) cast.retire(key.id);
    else if (a.status === 200) onOk?.(a);
  };
}

function context(rnd: Prng): Record<string, string> | undefined {
  return rnd.chance(0.3)
    ? { tenant: rnd.pick(['billing', 'payroll', 'ünïcødé']), request: String(rnd.int(1, 1e6)) }
    : undefined;
}

const encrypt: Maker = (cast, rnd) => {
  const u = keyUser(cast, rnd, 'Encrypt', ['AES']);
  if (!u) return health(cast, rnd);
  const ctx = context(rnd);
  const body = {
    plaintextBase64: b64(rnd.bytes(rnd.pick([0, 16, 256, 1024, 4096]))),
    ...(ctx ? { context: ctx } : {}),
  };
  return request(
    'POST /v1/keys/:id/encrypt',
    'POST',
    `/v1/keys/${u.key.id}/encrypt`,
    u.actor,
    body,
    watch(cast, u.key, u.actor, (a) =>
      cast.remember(cast.sampleOf(u.key.id).ciphertexts, {
        c: a.json.ciphertextBase64,
        ...(ctx ? { context: ctx } : {}),
      }),
    ),
  );
};

const decrypt: Maker = (cast, rnd) => {
  const u = keyUser(cast, rnd, 'Decrypt', ['AES'], (k) => cast.sampleOf(k.id).ciphertexts.length > 0);
  if (!u) return encrypt(cast, rnd);
  const s = rnd.pick(cast.sampleOf(u.key.id).ciphertexts);
  return request(
    'POST /v1/keys/:id/decrypt',
    'POST',
    `/v1/keys/${u.key.id}/decrypt`,
    u.actor,
    { ciphertextBase64: s.c, ...(s.context ? { context: s.context } : {}) },
    watch(cast, u.key, u.actor),
  );
};

const wrap: Maker = (cast, rnd) => {
  const u = keyUser(cast, rnd, 'Wrap', ['AES']);
  if (!u) return health(cast, rnd);
  const field = rnd.chance(0.8) ? 'dekBase64' : 'plaintextBase64';
  return request(
    'POST /v1/keys/:id/wrap',
    'POST',
    `/v1/keys/${u.key.id}/wrap`,
    u.actor,
    { [field]: b64(rnd.bytes(rnd.pick([16, 24, 32, 64]))) },
    watch(cast, u.key, u.actor, (a) => cast.remember(cast.sampleOf(u.key.id).wrapped, a.json.wrappedDekBase64)),
  );
};

const unwrap: Maker = (cast, rnd) => {
  const u = keyUser(cast, rnd, 'Unwrap', ['AES'], (k) => cast.sampleOf(k.id).wrapped.length > 0);
  if (!u) return wrap(cast, rnd);
  const field = rnd.chance(0.8) ? 'wrappedDekBase64' : 'wrappedKeyBase64';
  return request(
    'POST /v1/keys/:id/unwrap',
    'POST',
    `/v1/keys/${u.key.id}/unwrap`,
    u.actor,
    { [field]: rnd.pick(cast.sampleOf(u.key.id).wrapped) },
    watch(cast, u.key, u.actor),
  );
};

const sign: Maker = (cast, rnd) => {
  const u = keyUser(cast, rnd, 'Sign', SIGNING);
  if (!u) return health(cast, rnd);
  const m = b64(rnd.bytes(rnd.pick([1, 32, 64, 1000])));
  return request(
    'POST /v1/keys/:id/sign',
    'POST',
    `/v1/keys/${u.key.id}/sign`,
    u.actor,
    { messageBase64: m },
    watch(cast, u.key, u.actor, (a) =>
      cast.remember(cast.sampleOf(u.key.id).signatures, { m, s: a.json.signatureBase64 }),
    ),
  );
};

const verify: Maker = (cast, rnd) => {
  const u = keyUser(cast, rnd, 'Verify', SIGNING, (k) => cast.sampleOf(k.id).signatures.length > 0);
  if (!u) return sign(cast, rnd);
  const s = rnd.pick(cast.sampleOf(u.key.id).signatures);
  // A fifth of them check a signature over another message: a valid request answered { valid: false }.
  const messageBase64 = rnd.chance(0.2) ? b64(Buffer.from('another message')) : s.m;
  return request(
    'POST /v1/keys/:id/verify',
    'POST',
    `/v1/keys/${u.key.id}/verify`,
    u.actor,
    { messageBase64, signatureBase64: s.s },
    watch(cast, u.key, u.actor),
  );
};

const get: Maker = (cast, rnd) => {
  const u = keyUser(cast, rnd, 'Get', ['AES', ...SIGNING]);
  if (!u) return health(cast, rnd);
  return request('GET /v1/keys/:id', 'GET', `/v1/keys/${u.key.id}`, u.actor, undefined, watch(cast, u.key, u.actor));
};

const publicKey: Maker = (cast, rnd) => {
  const keys = cast.core.filter((k) => ASYMMETRIC.includes(k.algorithm));
  if (!keys.length) return get(cast, rnd);
  const key = rnd.pick(keys);
  const actor = { headers: cast.auth(rnd.pick(['admin', 'signer'] as Role[])) };
  return request(
    'GET /v1/keys/:id/public-key',
    'GET',
    `/v1/keys/${key.id}/public-key${rnd.chance(0.3) ? '?version=1' : ''}`,
    actor,
    undefined,
    watch(cast, key, actor),
  );
};

const create: Maker = (cast, rnd) => {
  // RSA key generation takes tens to hundreds of milliseconds: one create in fifty is RSA.
  const cheap = SPECS.filter((s) => s.algorithm !== 'RSA');
  const spec = rnd.chance(0.02)
    ? rnd.pick(SPECS.filter((s) => s.algorithm === 'RSA' && s.sizeBits === 2048))
    : rnd.pick(cheap);
  const owner: Role =
    spec.algorithm === 'AES' && rnd.chance(0.3)
      ? 'service'
      : SIGNING.includes(spec.algorithm) && rnd.chance(0.3)
        ? 'signer'
        : 'admin';
  const owned = {
    ...spec,
    ...(rnd.chance(0.2)
      ? { objectType: spec.algorithm === 'AES' || spec.algorithm === 'HMAC' ? 'SymmetricKey' : 'PrivateKey' }
      : {}),
  };
  return cast.createRequest(owner, owned);
};

/** Rotate, revoke, compromise or destroy one of the keys the mix made; the pool is refilled by creates. */
function lifecycle(op: 'rotate' | 'revoke' | 'compromise' | 'destroy'): Maker {
  return (cast, rnd) => {
    if (cast.scratch.length < 3) return create(cast, rnd);
    const actor = { headers: cast.auth('admin') };
    if (op === 'rotate') {
      const key = rnd.pick(cast.scratch);
      const body = rnd.chance(0.3)
        ? { policy: rnd.pick(['Manual', 'TimeBased:7days', 'OpCountBased:500000']), reason: 'scheduled' }
        : {};
      return request(
        'POST /v1/keys/:id/rotate',
        'POST',
        `/v1/keys/${key.id}/rotate`,
        actor,
        body,
        watch(cast, key, actor, (a) => void (key.version = a.json.currentVersion)),
      );
    }
    const key = cast.scratch.splice(rnd.int(0, cast.scratch.length - 1), 1)[0]!;
    cast.retired.push(key.id);
    if (op === 'destroy') return request('DELETE /v1/keys/:id', 'DELETE', `/v1/keys/${key.id}`, actor);
    const body =
      op === 'compromise' ? { reason: 'fuzz: suspected leak' } : rnd.chance(0.5) ? { reason: 'no longer needed' } : {};
    return request(`POST /v1/keys/:id/${op}`, 'POST', `/v1/keys/${key.id}/${op}`, actor, body);
  };
}

/**
 * A Human's scheduled destruction of a key the mix made: revoke, DELETE ?waitingDays (0: at once), and often a Human's
 * cancel.
 */
const scheduleDestroy: Maker = (cast, rnd) => {
  if (cast.scratch.length < 3) return create(cast, rnd);
  const key = cast.scratch.splice(rnd.int(0, cast.scratch.length - 1), 1)[0]!;
  cast.retired.push(key.id);
  const actor = { headers: cast.auth('admin') };
  return request(
    'POST /v1/keys/:id/revoke',
    'POST',
    `/v1/keys/${key.id}/revoke`,
    actor,
    { reason: 'to be destroyed' },
    (a) => {
      if (a.status === 200) cast.forced.push(destroyLater(cast, rnd, key, actor, rnd.pick([0, 1, 7, 30])));
    },
  );
};

/** DELETE ?waitingDays=`days` by `actor`; a scheduled destruction is then cancelled by a Human half the time. */
function destroyLater(cast: Cast, rnd: Prng, key: KeyRef, actor: Actor, days: number): FuzzRequest {
  return request('DELETE /v1/keys/:id', 'DELETE', `/v1/keys/${key.id}?waitingDays=${days}`, actor, undefined, (a) => {
    // An agent destroying keys is what the auto-responder watches for: one it cut off is replaced.
    if (actor.agent && a.status === 401 && a.json?.error === 'Unauthorized') cast.retireAgent(actor.agent.agentId);
    if (a.status === 202 && rnd.chance(0.5)) {
      cast.forced.push(
        request('POST /v1/keys/:id/cancel-destroy', 'POST', `/v1/keys/${key.id}/cancel-destroy`, {
          headers: cast.auth(rnd.pick(['admin', 'keeper'] as Role[])),
        }),
      );
    }
  });
}

/**
 * An agent with the Destroy scope destroys a revoked key: the service schedules it (agents always wait), and a Human
 * may cancel.
 */
const agentDestroy: Maker = (cast, rnd) => {
  const agents = cast.agents.filter((a) => a.scopes.includes('Destroy'));
  if (!agents.length || cast.scratch.length < 3) return scheduleDestroy(cast, rnd);
  const agent = rnd.pick(agents);
  const key = cast.scratch.splice(rnd.int(0, cast.scratch.length - 1), 1)[0]!;
  cast.retired.push(key.id);
  const actor: Actor = { headers: { authorization: `Bearer ${agent.jwt}` }, agent };
  return request(
    'POST /v1/keys/:id/revoke',
    'POST',
    `/v1/keys/${key.id}/revoke`,
    { headers: cast.auth('admin') },
    {},
    (a) => {
      if (a.status === 200) cast.forced.push(destroyLater(cast, rnd, key, actor, rnd.pick([0, 7, 14])));
    },
  );
};

/** Trim of a key the mix rotated: every version below minVersion erased (scratch keys: no samples under them). */
const trim: Maker = (cast, rnd) => {
  const rotated = cast.scratch.filter((k) => (k.version ?? 1) >= 2);
  if (!rotated.length) return lifecycle('rotate')(cast, rnd);
  const key = rnd.pick(rotated);
  const actor = { headers: cast.auth(rnd.pick(['admin', 'keeper'] as Role[])) };
  return request(
    'POST /v1/keys/:id/trim',
    'POST',
    `/v1/keys/${key.id}/trim`,
    actor,
    { minVersion: rnd.int(2, key.version!) },
    watch(cast, key, actor),
  );
};

const dataKey: Maker = (cast, rnd) => {
  const u = keyUser(cast, rnd, 'Encrypt', ['AES']);
  if (!u) return health(cast, rnd);
  const ctx = context(rnd);
  const body = {
    ...(rnd.chance(0.5) ? { sizeBits: rnd.pick([128, 192, 256]) } : {}),
    ...(ctx ? { context: ctx } : {}),
    ...(rnd.chance(0.3) ? { plaintext: rnd.chance(0.5) } : {}),
  };
  return request(
    'POST /v1/keys/:id/data-key',
    'POST',
    `/v1/keys/${u.key.id}/data-key`,
    u.actor,
    body,
    watch(cast, u.key, u.actor, (a) =>
      cast.remember(cast.sampleOf(u.key.id).ciphertexts, {
        c: a.json.ciphertextBase64,
        ...(ctx ? { context: ctx } : {}),
      }),
    ),
  );
};

/** Re-encryption under the same key (its current version) or under another AES key of the same caller. */
const reencrypt: Maker = (cast, rnd) => {
  const u = keyUser(cast, rnd, 'Decrypt', ['AES'], (k) => cast.sampleOf(k.id).ciphertexts.length > 0);
  if (!u) return dataKey(cast, rnd);
  const s = rnd.pick(cast.sampleOf(u.key.id).ciphertexts);
  const mine = (k: KeyRef) =>
    k.algorithm === 'AES' &&
    (u.actor.agent
      ? cast.agentKeys.includes(k)
      : cast.core.includes(k) && (k.owner === 'service') === (u.key.owner === 'service'));
  const others = [...cast.core, ...cast.agentKeys].filter((k) => k !== u.key && mine(k));
  const to = others.length && rnd.chance(0.5) ? rnd.pick(others) : u.key;
  const newContext = rnd.chance(0.2) ? { tenant: 'moved' } : undefined;
  const body = {
    ciphertextBase64: s.c,
    ...(s.context ? { context: s.context } : {}),
    ...(to !== u.key ? { destinationKeyId: to.id } : {}),
    ...(newContext ? { destinationContext: newContext } : {}),
  };
  const ctx = newContext ?? s.context;
  return request(
    'POST /v1/keys/:id/reencrypt',
    'POST',
    `/v1/keys/${u.key.id}/reencrypt`,
    u.actor,
    body,
    watch(cast, u.key, u.actor, (a) =>
      cast.remember(cast.sampleOf(to.id).ciphertexts, { c: a.json.ciphertextBase64, ...(ctx ? { context: ctx } : {}) }),
    ),
  );
};

/**
 * A batch ({items}) of encrypt, decrypt, sign or verify: a few items, now and then a hundred, about one in
 * ten of them broken (bad base64, a ciphertext of nothing): answered 200 with that item's {error, message}.
 */
const batch: Maker = (cast, rnd) => {
  const op = rnd.pick(['encrypt', 'decrypt', 'sign', 'verify'] as const);
  const n = rnd.chance(0.1) ? 100 : rnd.int(1, 12);
  const bad = () => rnd.chance(0.1);
  const items: Array<Record<string, unknown>> = [];
  let u: { actor: Actor; key: KeyRef } | undefined;
  if (op === 'encrypt') {
    u = keyUser(cast, rnd, 'Encrypt', ['AES']);
    for (let i = 0; u && i < n; i++)
      items.push({
        plaintextBase64: bad() ? '!!!!' : b64(rnd.bytes(rnd.pick([0, 16, 256]))),
        ...(rnd.chance(0.2) ? { context: { item: String(i) } } : {}),
      });
  } else if (op === 'decrypt') {
    u = keyUser(cast, rnd, 'Decrypt', ['AES'], (k) => cast.sampleOf(k.id).ciphertexts.length > 0);
    for (let i = 0; u && i < n; i++) {
      const s = rnd.pick(cast.sampleOf(u.key.id).ciphertexts);
      items.push(
        bad() ? { ciphertextBase64: 'AAAA' } : { ciphertextBase64: s.c, ...(s.context ? { context: s.context } : {}) },
      );
    }
  } else if (op === 'sign') {
    // No RSA: a hundred RSA signatures are a noticeable part of a second of CPU.
    u = keyUser(cast, rnd, 'Sign', ['EC', 'EdDSA', 'HMAC']);
    for (let i = 0; u && i < n; i++) items.push({ messageBase64: bad() ? 'Zm9v YmFy' : b64(rnd.bytes(32)) });
  } else {
    u = keyUser(cast, rnd, 'Verify', SIGNING, (k) => cast.sampleOf(k.id).signatures.length > 0);
    for (let i = 0; u && i < n; i++) {
      const s = rnd.pick(cast.sampleOf(u.key.id).signatures);
      items.push(
        bad()
          ? { messageBase64: s.m, signatureBase64: '====' }
          : { messageBase64: rnd.chance(0.2) ? b64(Buffer.from('another message')) : s.m, signatureBase64: s.s },
      );
    }
  }
  if (!u) return encrypt(cast, rnd);
  return request(
    `POST /v1/keys/:id/${op} {items}`,
    'POST',
    `/v1/keys/${u.key.id}/${op}`,
    u.actor,
    { items },
    watch(cast, u.key, u.actor),
  );
};

/** Export of an exportable key, by a Human or by the Service (its own). */
const exportKey: Maker = (cast, rnd) => {
  const keys = cast.core.filter((k) => k.spec.exportable === true);
  if (!keys.length) return get(cast, rnd);
  const key = rnd.pick(keys);
  const actor = {
    headers: cast.auth(key.owner === 'service' ? 'service' : rnd.pick(['admin', 'keeper', 'signer'] as Role[])),
  };
  return request(
    'POST /v1/keys/:id/export',
    'POST',
    `/v1/keys/${key.id}/export`,
    actor,
    rnd.chance(0.2) ? { version: 1 } : {},
    watch(cast, key, actor),
  );
};

/** The names the mix gives keys (fuzz-<algorithm>-<n>), owners and states, for Locate's filters. */
const LOCATE_NAMES = ['fuzz-aes-*', 'fuzz-*', '*-1', 'fuzz-ec-1', 'fuzz-hmac-*', 'fuzz-*-2*', 'nothing-like-it', '*'];
const LOCATE_STATES = ['Active', 'PreActive', 'Deactivated', 'Compromised', 'Destroyed'];

/** GET /v1/keys: one to three filters, a limit, and half the time the next page by its nextCursor. */
const locate: Maker = (cast, rnd) => {
  const q = new URLSearchParams();
  const filters: Array<() => void> = [
    () => q.set('name', rnd.pick(LOCATE_NAMES)),
    () => q.set('state', rnd.pick(LOCATE_STATES)),
    () => q.set('algorithm', rnd.pick(['AES', 'RSA', 'EC', 'EdDSA', 'HMAC'])),
    () => q.set('owner', rnd.pick(['alice', 'billing', 'carol', 'nobody'])),
    () => q.set('createdAfter', new Date(Date.now() - rnd.int(1, 120) * 1000).toISOString()),
    () =>
      q.set(
        'createdBefore',
        rnd.chance(0.5)
          ? new Date().toISOString().slice(0, 10)
          : new Date(Date.now() - rnd.int(0, 60) * 1000).toISOString(),
      ),
  ];
  for (let i = rnd.int(0, 3); i > 0; i--) rnd.pick(filters)();
  if (rnd.chance(0.8)) q.set('limit', String(rnd.pick([1, 5, 20, 100, 1000])));
  const headers = cast.auth(rnd.pick(['admin', 'keeper'] as Role[]));
  const next = (a: Answer) => {
    if (a.status === 200 && a.json.nextCursor && rnd.chance(0.5)) {
      q.set('cursor', a.json.nextCursor);
      cast.forced.push(request('GET /v1/keys', 'GET', `/v1/keys?${q}`, { headers }, undefined, next));
    }
  };
  return request('GET /v1/keys', 'GET', `/v1/keys${q.size ? `?${q}` : ''}`, { headers }, undefined, next);
};

/**
 * POST /v1/keys/import-parameters, rarely: each makes an RSA-3072 wrapping key (a second of CPU), so a
 * run asks at most three times. The tokens feed imports of garbage material (hostile).
 */
const importParameters: Maker = (cast, rnd) => {
  if (cast.importParameterCalls >= 3) return locate(cast, rnd);
  cast.importParameterCalls++;
  const body = rnd.pick([
    { algorithm: 'AES', sizeBits: 256 },
    { algorithm: 'HMAC', sizeBits: 256 },
    { algorithm: 'EC', curve: 'P-256' },
    { algorithm: 'EdDSA', curve: 'Ed25519' },
  ]);
  return request(
    'POST /v1/keys/import-parameters',
    'POST',
    '/v1/keys/import-parameters',
    { headers: cast.auth('admin') },
    body,
    (a) => {
      if (a.status === 200) cast.importTokens.push(a.json.importToken);
    },
  );
};

const issueAgent: Maker = (cast, rnd) => {
  if (cast.agents.length > 12) return revokeAgent(cast, rnd);
  return rnd.chance(0.5)
    ? cast.issueRequest(
        'admin',
        rnd.pick([['Encrypt', 'Decrypt'], ['Encrypt', 'Decrypt', 'Wrap', 'Unwrap', 'Get'], ['Get']]),
      )
    : cast.issueRequest('signer', rnd.pick([['Sign', 'Verify'], ['Sign'], ['Get', 'Verify']]));
};

const listAgents: Maker = (cast, rnd) => {
  const [role, query] = rnd.pick([
    ['admin', ''],
    ['signer', '?limit=5'],
    ['keeper', '?parent=carol'],
    ['keeper', '?limit=1000'],
    ['auditor', '?parent=alice&limit=20'],
  ] as Array<[Role, string]>);
  return request('GET /v1/agents', 'GET', `/v1/agents${query}`, { headers: cast.auth(role) });
};

const revokeAgent: Maker = (cast, rnd) => {
  if (cast.agents.length < 4) return issueAgent(cast, rnd);
  const agent = cast.agents[rnd.int(0, cast.agents.length - 1)]!;
  cast.retireAgent(agent.agentId);
  const by: Role = rnd.chance(0.5) ? 'keeper' : agent.parent;
  return request('POST /v1/agents/:agentId/revoke', 'POST', `/v1/agents/${agent.agentId}/revoke`, {
    headers: cast.auth(by),
  });
};

const revokeToken: Maker = (cast, rnd) => {
  if (!cast.retiredAgents.length) return listAgents(cast, rnd);
  const agent = rnd.pick(cast.retiredAgents);
  return request(
    'POST /v1/tokens/revoke',
    'POST',
    '/v1/tokens/revoke',
    { headers: cast.auth('keeper') },
    { jti: agent.jti },
  );
};

const auditQuery: Maker = (cast, rnd) => {
  const q = new URLSearchParams();
  const filter = rnd.int(0, 5);
  if (filter === 1 && cast.core.length) q.set('key', rnd.pick(cast.core).id);
  if (filter === 2)
    q.set('actor', rnd.pick(['alice', 'bob', 'carol', 'billing', 'mallory', ...cast.agents.map((a) => a.agentId)]));
  if (filter === 3) q.set('op', rnd.pick(['Encrypt', 'Sign', 'Create', 'Destroy', 'Query']));
  if (filter === 4) q.set('since', new Date(Date.now() - rnd.int(1, 120) * 1000).toISOString());
  if (filter === 5) {
    q.set('since', new Date(Date.now() - 3_600_000).toISOString());
    q.set('until', new Date(Date.now() - rnd.int(0, 60) * 1000).toISOString());
  }
  q.set('limit', String(rnd.pick([1, 10, 100, 500, 1000])));
  if (rnd.chance(0.3)) q.set('offset', String(rnd.pick([0, 100, 1000, 5000])));
  const role = rnd.pick(['auditor', 'admin', 'keeper'] as Role[]);
  const headers = cast.auth(role);
  return request('GET /v1/audit', 'GET', `/v1/audit?${q}`, { headers }, undefined, (a) => {
    // Paging: the next page of a page that has more is asked for next, by its cursor or by offset.
    if (a.status === 200 && a.json.hasMore && rnd.chance(0.5)) {
      if (a.json.next && rnd.chance(0.7)) {
        q.delete('offset');
        q.set('before', a.json.next);
      } else q.set('offset', String(Number(q.get('offset') ?? 0) + a.json.records.length));
      cast.forced.push(request('GET /v1/audit', 'GET', `/v1/audit?${q}`, { headers }));
    }
  });
};

const auditVerify: Maker = (cast, rnd) => {
  const roll = rnd.next();
  // Mostly incremental (what came after the last verification); sometimes a recent window; rarely all of it.
  const query =
    roll < 0.03
      ? '?full=true'
      : roll < 0.2
        ? `?since=${encodeURIComponent(new Date(Date.now() - 60_000).toISOString())}`
        : '';
  return request('GET /v1/audit/verify', 'GET', `/v1/audit/verify${query}`, {
    headers: cast.auth(rnd.pick(['auditor', 'keeper'] as Role[])),
  });
};

const advisorScan: Maker = (cast, rnd) =>
  request(
    'GET /v1/advisor/scan',
    'GET',
    `/v1/advisor/scan${rnd.chance(0.5) ? `?lookbackDays=${rnd.int(1, 30)}&top=${rnd.int(1, 20)}` : ''}`,
    { headers: cast.auth('auditor') },
  );

const advisorExplain: Maker = (cast, rnd) => {
  const agent = cast.agents.length ? rnd.pick([...cast.agents, ...cast.retiredAgents.slice(-4)]) : undefined;
  const id = agent?.agentId ?? 'agent-00000000-0000-4000-8000-000000000000';
  return request(
    'GET /v1/advisor/explain/:agentId',
    'GET',
    `/v1/advisor/explain/${id}${rnd.chance(0.5) ? '?maxEvents=50&lookbackDays=1' : ''}`,
    { headers: cast.auth(rnd.pick(['auditor', 'keeper'] as Role[])) },
  );
};

const health: Maker = (cast, rnd) => {
  const [route, path] = rnd.pick([
    ['GET /readyz', '/readyz'],
    ['GET /readyz', '/readyz'],
    ['GET /healthz', '/healthz'],
    ['GET /metrics', '/metrics'],
  ]);
  const headers = route === 'GET /readyz' && rnd.chance(0.5) ? cast.auth('admin') : {};
  const gauge = (text: string, name: string) => Number(new RegExp(`^${name} ([0-9.e+-]+)`, 'm').exec(text)?.[1]) * 1000;
  return request(
    route!,
    'GET',
    path!,
    { headers },
    undefined,
    route === 'GET /metrics'
      ? (a) => {
          if (a.status === 200)
            cast.loopDelays.push({
              p99: gauge(a.text, 'nodejs_eventloop_lag_p99_seconds'),
              max: gauge(a.text, 'nodejs_eventloop_lag_max_seconds'),
            });
        }
      : undefined,
  );
};

const docs: Maker = (_cast, rnd) => {
  const [route, path] = rnd.pick([
    ['GET /docs/docs.yaml', '/docs/docs.yaml'],
    ['GET /docs/audit-event.schema.json', '/docs/audit-event.schema.json'],
  ]);
  return request(route!, 'GET', path!, { headers: {} });
};

/** Valid makers and their weights (per thousand requests of the valid part). */
export const VALID: Record<string, { weight: number; make: Maker }> = {
  encrypt: { weight: 150, make: encrypt },
  decrypt: { weight: 110, make: decrypt },
  wrap: { weight: 50, make: wrap },
  unwrap: { weight: 40, make: unwrap },
  sign: { weight: 120, make: sign },
  verify: { weight: 90, make: verify },
  get: { weight: 70, make: get },
  publicKey: { weight: 20, make: publicKey },
  create: { weight: 40, make: create },
  rotate: { weight: 12, make: lifecycle('rotate') },
  revoke: { weight: 6, make: lifecycle('revoke') },
  compromise: { weight: 6, make: lifecycle('compromise') },
  destroy: { weight: 8, make: lifecycle('destroy') },
  issueAgent: { weight: 8, make: issueAgent },
  listAgents: { weight: 12, make: listAgents },
  revokeAgent: { weight: 4, make: revokeAgent },
  revokeToken: { weight: 3, make: revokeToken },
  auditQuery: { weight: 70, make: auditQuery },
  auditVerify: { weight: 12, make: auditVerify },
  advisorScan: { weight: 2, make: advisorScan },
  advisorExplain: { weight: 5, make: advisorExplain },
  health: { weight: 40, make: health },
  docs: { weight: 3, make: docs },
  locate: { weight: 25, make: locate },
  dataKey: { weight: 30, make: dataKey },
  reencrypt: { weight: 20, make: reencrypt },
  batch: { weight: 30, make: batch },
  exportKey: { weight: 6, make: exportKey },
  scheduleDestroy: { weight: 5, make: scheduleDestroy },
  agentDestroy: { weight: 3, make: agentDestroy },
  trim: { weight: 5, make: trim },
  importParameters: { weight: 1, make: importParameters },
};
