import type { Prng } from './prng.ts';
import type { Cast, KeyRef, Role } from './cast.ts';
import type { FuzzRequest } from './transport.ts';
import { VALID } from './valid-requests.ts';

/**
 * Hostile requests: a valid request with one thing broken (a field's type, an unknown field, a control
 * character, bad base64, a huge or deeply nested value, the JSON itself, the credential), or a call
 * that must be refused (an agent outside its scopes, a Human outside its role, a bad or prototype id,
 * a key of the wrong type, a retired key, a bad query, a forged Locate cursor, a batch of no items or
 * too many, an export of a key not exportable, a bad trim or waitingDays, an import of garbage, an
 * unknown route). None of them may be a 5xx.
 */
type Maker = (cast: Cast, rnd: Prng) => FuzzRequest;

/** Makers whose requests change no state when generated; a mutation starts from one of these. */
const BASES = [
  'encrypt',
  'decrypt',
  'wrap',
  'unwrap',
  'sign',
  'verify',
  'get',
  'create',
  'issueAgent',
  'auditQuery',
  'listAgents',
  'auditVerify',
] as const;
const BODY_BASES = ['encrypt', 'decrypt', 'wrap', 'unwrap', 'sign', 'verify', 'create', 'issueAgent'] as const;

function base(cast: Cast, rnd: Prng, names: readonly string[], kind: string): FuzzRequest {
  const name =
    names === BODY_BASES && cast.agents.length > 12
      ? rnd.pick(BODY_BASES.filter((n) => n !== 'issueAgent'))
      : rnd.pick(names);
  const { after: _after, ...req } = VALID[name]!.make(cast, rnd);
  return { ...req, kind: `hostile:${kind}` };
}

/** Every [parent, field] of a JSON value, so a mutation can pick one place to break. */
function places(
  value: unknown,
  out: Array<[Record<string, unknown>, string]> = [],
): Array<[Record<string, unknown>, string]> {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) {
      out.push([value as Record<string, unknown>, k]);
      places(v, out);
    }
  }
  return out;
}

function mutateBody(
  cast: Cast,
  rnd: Prng,
  kind: string,
  change: (parent: Record<string, unknown>, field: string) => void,
): FuzzRequest {
  const req = base(cast, rnd, BODY_BASES, kind);
  const body = JSON.parse(req.body ?? '{}');
  const all = places(body);
  if (all.length) change(...rnd.pick(all));
  return { ...req, body: JSON.stringify(body) };
}

const WRONG_TYPES = [42, -1, 1.5, true, false, null, [], {}, ['a'], { a: 1 }, 'text', '', 1e21];
const BAD_BASE64 = [
  '!!!!',
  '====',
  'YQ',
  `${'a'.repeat(4097)}=`,
  'ключ',
  '%%%',
  'Zm9v\nYmFy',
  'Zm9v YmFy',
  'Zm9vYmFy=',
  'Zm9=vYmFy',
  '-_-_',
  '\u0000AAAA',
];
const CONTROL = [
  '\u0000',
  '\u0001',
  '\u0007',
  '\u001b[31m',
  '\r\n',
  '\u2028',
  '\u202e',
  '\ud800',
  '\uffff',
  '\u0000\u0000',
];
const PROTO = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'];

/** A value nested `depth` arrays deep, written as text (no recursion on either side of the wire). */
const deep = (depth: number, open = '[', close = ']') => `${open.repeat(depth)}1${close.repeat(depth)}`;

const wrongType: Maker = (cast, rnd) =>
  mutateBody(cast, rnd, 'wrong-type', (p, f) => void (p[f] = rnd.pick(WRONG_TYPES)));
const unknownField: Maker = (cast, rnd) =>
  mutateBody(
    cast,
    rnd,
    'unknown-field',
    (p) => void (p[rnd.pick(['extra', 'admin', 'owner', 'id', ...PROTO])] = rnd.pick(WRONG_TYPES)),
  );
const controlChars: Maker = (cast, rnd) =>
  mutateBody(cast, rnd, 'control-characters', (p, f) => {
    if (rnd.chance(0.3)) p[`${f}${rnd.pick(CONTROL)}`] = 'x';
    else p[f] = `${typeof p[f] === 'string' ? p[f] : 'value'}${rnd.pick(CONTROL)}tail`;
  });
const badBase64: Maker = (cast, rnd) => {
  const req = base(cast, rnd, ['encrypt', 'decrypt', 'wrap', 'unwrap', 'sign', 'verify'], 'bad-base64');
  const body = JSON.parse(req.body!);
  const fields = Object.keys(body).filter((f) => f.endsWith('Base64'));
  for (const f of fields) if (f === fields[0] || rnd.chance(0.5)) body[f] = rnd.pick(BAD_BASE64);
  return { ...req, body: JSON.stringify(body) };
};
const hugeValue: Maker = (cast, rnd) =>
  mutateBody(
    cast,
    rnd,
    'huge-value',
    (p, f) =>
      void (p[f] = rnd.chance(0.5)
        ? 'A'.repeat(rnd.pick([70_000, 300_000, 900_000]))
        : Array.from({ length: 50_000 }, (_, i) => i)),
  );
const deepValue: Maker = (cast, rnd) => {
  const req = base(cast, rnd, BODY_BASES, 'deep-value');
  const depth = rnd.pick([100, 5_000, 100_000, 300_000]);
  const nested = rnd.chance(0.5) ? deep(depth) : deep(depth, '{"a":', '}');
  const body = (req.body ?? '{}').replace(/^\{/, `{"deep":${nested},`).replace(/,}$/, '}');
  return { ...req, body };
};
const malformedJson: Maker = (cast, rnd) => {
  const req = base(cast, rnd, BODY_BASES, 'malformed-json');
  const text = req.body ?? '{}';
  const body = rnd.pick([
    text.slice(0, Math.max(1, text.length - 3)),
    `${text}garbage`,
    text.replace(/"/g, "'"),
    '',
    'null',
    '[]',
    '"just a string"',
    '{"a":1,"a":2}',
    '{"spec":{"spec":{"spec":1}}}',
    '\u0000',
    '{"x":NaN}',
    '{"x":1e400}',
    `{"ttlSeconds":${2 ** 64}}`,
    '\ufeff{}',
  ]);
  return { ...req, body };
};
const wrongContentType: Maker = (cast, rnd) => {
  const req = base(cast, rnd, BODY_BASES, 'wrong-content-type');
  return {
    ...req,
    headers: {
      ...req.headers,
      'content-type': rnd.pick([
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/json; charset=latin1',
        'application/xml',
      ]),
    },
  };
};
const badCredential: Maker = (cast, rnd) => {
  const req = base(cast, rnd, BASES, 'bad-credential');
  const bad = rnd.pick(cast.badTokens);
  const headers = { ...req.headers };
  delete headers.authorization;
  if (bad.header) headers.authorization = bad.header;
  return { ...req, kind: `hostile:bad-credential:${bad.name}`, headers };
};

const post = (
  kind: string,
  route: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
  method = 'POST',
): FuzzRequest => ({
  route,
  kind: `hostile:${kind}`,
  method,
  path,
  headers,
  ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
});
const anyKey = (cast: Cast, rnd: Prng, pool: KeyRef[] = cast.core): string =>
  pool.length ? rnd.pick(pool).id : '00000000-0000-4000-8000-000000000000';

const agentOutOfScope: Maker = (cast, rnd) => {
  // The agent that may destroy is no agent out of its scope on DELETE.
  const agents = cast.agents.filter((a) => !a.scopes.includes('Destroy'));
  const agent = agents.length ? rnd.pick(agents) : undefined;
  if (!agent) return badCredential(cast, rnd);
  const h = { authorization: `Bearer ${agent.jwt}` };
  const k = anyKey(cast, rnd, cast.agentKeys);
  return rnd.pick([
    () => post('agent-out-of-scope', 'DELETE /v1/keys/:id', `/v1/keys/${k}`, h, undefined, 'DELETE'),
    () =>
      post('agent-out-of-scope', 'POST /v1/keys/:id/compromise', `/v1/keys/${k}/compromise`, h, {
        reason: 'agent says so',
      }),
    () =>
      post('agent-out-of-scope', 'POST /v1/keys', '/v1/keys', h, { spec: { name: 'agent-made', algorithm: 'AES' } }),
    () => post('agent-out-of-scope', 'POST /v1/keys/:id/rotate', `/v1/keys/${k}/rotate`, h, {}),
    () =>
      post(
        'agent-out-of-scope',
        agent.scopes.includes('Sign') ? 'POST /v1/keys/:id/encrypt' : 'POST /v1/keys/:id/sign',
        `/v1/keys/${k}/${agent.scopes.includes('Sign') ? 'encrypt' : 'sign'}`,
        h,
        agent.scopes.includes('Sign') ? { plaintextBase64: 'aGk=' } : { messageBase64: 'aGk=' },
      ),
    () => post('agent-out-of-scope', 'GET /v1/audit', '/v1/audit?limit=10', h, undefined, 'GET'),
    () => post('agent-out-of-scope', 'GET /v1/audit/verify', '/v1/audit/verify', h, undefined, 'GET'),
    () =>
      post('agent-out-of-scope', 'POST /v1/agents/issue', '/v1/agents/issue', h, {
        label: 'child',
        scopes: agent.scopes,
        ttlSeconds: 60,
      }),
    () => post('agent-out-of-scope', 'GET /v1/agents', '/v1/agents', h, undefined, 'GET'),
    () => post('agent-out-of-scope', 'GET /v1/advisor/scan', '/v1/advisor/scan', h, undefined, 'GET'),
    () => post('agent-out-of-scope', 'POST /v1/tokens/revoke', '/v1/tokens/revoke', h, { jti: agent.jti }),
    () =>
      post('agent-out-of-scope', 'POST /v1/keys/:id/encrypt', `/v1/keys/${anyKey(cast, rnd)}/encrypt`, h, {
        plaintextBase64: 'aGk=',
      }),
    () => post('agent-out-of-scope', 'GET /v1/keys', '/v1/keys?name=fuzz-*', h, undefined, 'GET'),
    () => post('agent-out-of-scope', 'POST /v1/keys/:id/trim', `/v1/keys/${k}/trim`, h, { minVersion: 2 }),
    () => post('agent-out-of-scope', 'POST /v1/keys/:id/cancel-destroy', `/v1/keys/${k}/cancel-destroy`, h),
  ])();
};

const outOfRole: Maker = (cast, rnd) => {
  const who: Role = rnd.pick(['mallory', 'signer', 'service']);
  const h = cast.auth(who);
  const k = anyKey(cast, rnd);
  const victim = cast.agents.find((a) => a.parent === 'admin');
  return rnd.pick([
    () => post('out-of-role', 'POST /v1/keys/:id/encrypt', `/v1/keys/${k}/encrypt`, h, { plaintextBase64: 'aGk=' }),
    () => post('out-of-role', 'DELETE /v1/keys/:id', `/v1/keys/${k}`, h, undefined, 'DELETE'),
    () => post('out-of-role', 'POST /v1/keys/:id/revoke', `/v1/keys/${k}/revoke`, h, {}),
    () => post('out-of-role', 'GET /v1/agents', '/v1/agents?parent=alice', h, undefined, 'GET'),
    () =>
      post(
        'out-of-role',
        'POST /v1/agents/:agentId/revoke',
        `/v1/agents/${victim?.agentId ?? 'agent-00000000-0000-4000-8000-000000000001'}/revoke`,
        h,
      ),
    () =>
      post('out-of-role', 'POST /v1/tokens/revoke', '/v1/tokens/revoke', h, {
        jti: victim?.jti ?? '00000000-0000-4000-8000-000000000000',
      }),
    () =>
      post('out-of-role', 'POST /v1/agents/issue', '/v1/agents/issue', h, {
        label: 'more than I may',
        scopes: ['Destroy', 'Encrypt'],
        ttlSeconds: 60,
      }),
    () =>
      post('out-of-role', 'POST /v1/agents/issue', '/v1/agents/issue', h, {
        label: 'for someone else',
        scopes: ['Sign'],
        ttlSeconds: 60,
        parent: 'alice',
      }),
    () => post('out-of-role', 'GET /v1/audit', '/v1/audit?actor=alice', h, undefined, 'GET'),
    () => post('out-of-role', 'GET /v1/audit/verify', '/v1/audit/verify', h, undefined, 'GET'),
    () => post('out-of-role', 'GET /v1/advisor/scan', '/v1/advisor/scan', h, undefined, 'GET'),
  ])();
};

const BAD_IDS = [
  'not-a-uuid',
  '00000000-0000-4000-8000-000000000000',
  'a'.repeat(400),
  '%00',
  '%00%00abc',
  '..%2F..%2Fetc%2Fpasswd',
  '%E2%80%AE',
  '%ZZ',
  '%',
  '%C0%AF',
  '%F0%9F%94%91',
  '1%20OR%201%3D1',
  "'%3B--",
  '%7B%7D',
  'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF',
  '-1',
  '0x10',
  '%0d%0aSet-Cookie:%20x',
];
const KEY_PATHS = [
  '',
  '/encrypt',
  '/decrypt',
  '/sign',
  '/verify',
  '/wrap',
  '/unwrap',
  '/activate',
  '/rotate',
  '/revoke',
  '/compromise',
  '/public-key',
];

const badId: Maker = (cast, rnd) => {
  const id = rnd.chance(0.2) ? rnd.pick(PROTO) : rnd.pick(BAD_IDS);
  const kind = PROTO.includes(id) ? 'prototype-name' : 'bad-id';
  const h = cast.auth(rnd.pick(['admin', 'keeper', 'auditor'] as Role[]));
  const tail = rnd.pick(KEY_PATHS);
  return rnd.pick([
    () =>
      post(
        kind,
        `${tail === '' || tail === '/public-key' ? 'GET' : 'POST'} /v1/keys/:id${tail}`,
        `/v1/keys/${id}${tail}`,
        h,
        tail === '' || tail === '/public-key' ? undefined : { plaintextBase64: 'aGk=', messageBase64: 'aGk=' },
        tail === '' || tail === '/public-key' ? 'GET' : 'POST',
      ),
    () => post(kind, 'DELETE /v1/keys/:id', `/v1/keys/${id}`, h, undefined, 'DELETE'),
    () => post(kind, 'POST /v1/agents/:agentId/revoke', `/v1/agents/${id}/revoke`, h),
    () => post(kind, 'GET /v1/advisor/explain/:agentId', `/v1/advisor/explain/${id}`, h, undefined, 'GET'),
    () => post(kind, 'GET /docs/assets/ui/:file', `/docs/assets/ui/${id}`, {}, undefined, 'GET'),
    () =>
      post(
        kind,
        'GET /v1/audit',
        `/v1/audit?key=${id}&actor=${rnd.pick(PROTO)}&op=${rnd.pick(PROTO)}`,
        h,
        undefined,
        'GET',
      ),
    () => post(kind, 'GET /v1/agents', `/v1/agents?parent=${id}&${rnd.pick(PROTO)}=1`, h, undefined, 'GET'),
  ])();
};

const wrongKey: Maker = (cast, rnd) => {
  const h = cast.auth('admin');
  const of = (algs: string[]) =>
    anyKey(
      cast,
      rnd,
      cast.core.filter((k) => algs.includes(k.algorithm)),
    );
  const aes = cast.core.filter(
    (k) => k.algorithm === 'AES' && k.owner !== 'service' && cast.sampleOf(k.id).ciphertexts.length,
  );
  const signed = cast.core.filter((k) => cast.sampleOf(k.id).signatures.length);
  return rnd.pick([
    () =>
      post('wrong-key-type', 'POST /v1/keys/:id/encrypt', `/v1/keys/${of(['EC', 'EdDSA', 'RSA', 'HMAC'])}/encrypt`, h, {
        plaintextBase64: 'aGk=',
      }),
    () =>
      post('wrong-key-type', 'POST /v1/keys/:id/sign', `/v1/keys/${of(['AES'])}/sign`, h, { messageBase64: 'aGk=' }),
    () =>
      post('wrong-key-type', 'POST /v1/keys/:id/wrap', `/v1/keys/${of(['HMAC', 'EC'])}/wrap`, h, {
        dekBase64: Buffer.alloc(32).toString('base64'),
      }),
    () =>
      post('wrong-key-type', 'POST /v1/keys/:id/wrap', `/v1/keys/${of(['AES'])}/wrap`, h, {
        dekBase64: Buffer.alloc(rnd.pick([0, 1, 15, 17, 520])).toString('base64'),
      }),
    () =>
      post(
        'wrong-key-type',
        'GET /v1/keys/:id/public-key',
        `/v1/keys/${of(['AES', 'HMAC'])}/public-key`,
        h,
        undefined,
        'GET',
      ),
    () =>
      post('wrong-key-type', 'POST /v1/keys/:id/sign', `/v1/keys/${of(['EdDSA', 'EC'])}/sign`, h, {
        messageBase64: 'aGk=',
        algorithm: rnd.pick(['RS256', 'PS512', 'HS256', 'ES384', 'EdDSA', 'none']),
      }),
    () =>
      post('wrong-key-type', 'POST /v1/keys/:id/unwrap', `/v1/keys/${of(['AES'])}/unwrap`, h, {
        wrappedDekBase64: rnd.bytes(40).toString('base64'),
      }),
    () =>
      post('wrong-key-type', 'POST /v1/keys/:id/decrypt', `/v1/keys/${of(['AES'])}/decrypt`, h, {
        ciphertextBase64: rnd.bytes(rnd.pick([0, 5, 60, 200])).toString('base64'),
      }),
    () => {
      // A ciphertext decrypted under another key, or with another context: DecryptionFailed, never a 500.
      if (aes.length < 2)
        return post('wrong-key-type', 'POST /v1/keys/:id/decrypt', `/v1/keys/${of(['AES'])}/decrypt`, h, {
          ciphertextBase64: 'AAAA',
        });
      const [a, b] = [rnd.pick(aes), rnd.pick(aes)];
      const s = rnd.pick(cast.sampleOf(a.id).ciphertexts);
      return post('wrong-key-type', 'POST /v1/keys/:id/decrypt', `/v1/keys/${b.id}/decrypt`, h, {
        ciphertextBase64: s.c,
        context: { tenant: 'someone else' },
      });
    },
    () => {
      if (!signed.length)
        return post('wrong-key-type', 'POST /v1/keys/:id/verify', `/v1/keys/${of(['EC'])}/verify`, h, {
          messageBase64: 'aGk=',
          signatureBase64: 'AAAA',
        });
      const s = rnd.pick(cast.sampleOf(rnd.pick(signed).id).signatures);
      return post(
        'wrong-key-type',
        'POST /v1/keys/:id/verify',
        `/v1/keys/${of(['RSA', 'EC', 'EdDSA', 'HMAC'])}/verify`,
        h,
        { messageBase64: s.m, signatureBase64: s.s, keyVersion: rnd.pick([1, 2, 999999]) },
      );
    },
  ])();
};

const retiredKey: Maker = (cast, rnd) => {
  if (!cast.retired.length) return wrongKey(cast, rnd);
  const id = rnd.pick(cast.retired);
  const h = cast.auth('admin');
  return rnd.pick([
    () => post('retired-key', 'POST /v1/keys/:id/encrypt', `/v1/keys/${id}/encrypt`, h, { plaintextBase64: 'aGk=' }),
    () => post('retired-key', 'POST /v1/keys/:id/sign', `/v1/keys/${id}/sign`, h, { messageBase64: 'aGk=' }),
    () => post('retired-key', 'POST /v1/keys/:id/activate', `/v1/keys/${id}/activate`, h),
    () => post('retired-key', 'POST /v1/keys/:id/rotate', `/v1/keys/${id}/rotate`, h, {}),
    () => post('retired-key', 'DELETE /v1/keys/:id', `/v1/keys/${id}`, h, undefined, 'DELETE'),
    () => post('retired-key', 'GET /v1/keys/:id', `/v1/keys/${id}`, h, undefined, 'GET'),
  ])();
};

const badQuery: Maker = (cast, rnd) => {
  const h = cast.auth(rnd.pick(['auditor', 'keeper'] as Role[]));
  const value = () =>
    rnd.pick([
      'abc',
      '-5',
      '99999999999999999999',
      '1e3',
      '1.5',
      '',
      '%00',
      'true',
      '[]',
      '0x10',
      '%E2%80%AE',
      'NaN',
      'Infinity',
      '%2010',
      '%20',
    ]);
  return rnd.pick([
    () => post('bad-query', 'GET /v1/audit', `/v1/audit?limit=${value()}&offset=${value()}`, h, undefined, 'GET'),
    () =>
      post(
        'bad-query',
        'GET /v1/audit',
        `/v1/audit?since=${rnd.pick(['not-a-date', '2026-13-45T99:00:00Z', '0', '%00', '9999999-01-01'])}&until=${value()}`,
        h,
        undefined,
        'GET',
      ),
    () => post('bad-query', 'GET /v1/audit', `/v1/audit?limit=1&limit=2&op=Encrypt&op=Sign`, h, undefined, 'GET'),
    () =>
      post(
        'bad-query',
        'GET /v1/audit',
        `/v1/audit?before=${rnd.pick(['garbage', '2026-01-01T00:00:00.000Z', 'MjAyNi0wMS0wMQ', '%00', 'x'.repeat(100), 'eyJ0IjoiMjAyNiJ9', '__proto__'])}`,
        h,
        undefined,
        'GET',
      ),
    () =>
      post(
        'bad-query',
        'GET /v1/audit/verify',
        `/v1/audit/verify?full=${rnd.pick(['maybe', 'TRUE', '1', ''])}&node=${'n'.repeat(rnd.pick([1, 200]))}`,
        h,
        undefined,
        'GET',
      ),
    () =>
      post(
        'bad-query',
        'GET /v1/audit/verify',
        `/v1/audit/verify?since=${value()}&until=${value()}`,
        h,
        undefined,
        'GET',
      ),
    () =>
      post(
        'bad-query',
        'GET /v1/advisor/scan',
        `/v1/advisor/scan?lookbackDays=${value()}&top=${value()}&broadScope=${value()}&unusedDays=${value()}`,
        h,
        undefined,
        'GET',
      ),
    () =>
      post(
        'bad-query',
        'GET /v1/agents',
        `/v1/agents?limit=${value()}&parent=${'p'.repeat(rnd.pick([1, 600]))}`,
        h,
        undefined,
        'GET',
      ),
    () =>
      post(
        'bad-query',
        'GET /v1/keys/:id/public-key',
        `/v1/keys/${anyKey(cast, rnd)}/public-key?version=${value()}`,
        h,
        undefined,
        'GET',
      ),
  ])();
};

const unknownRoute: Maker = (cast, rnd) => {
  const h = rnd.chance(0.5) ? cast.auth('admin') : {};
  const k = anyKey(cast, rnd);
  const [method, path] = rnd.pick([
    ['GET', '/v1/nope'],
    ['DELETE', '/v1/keys'],
    ['PUT', '/v1/keys'],
    ['PATCH', `/v1/keys/${k}`],
    ['GET', `/v1/keys/${k}/encrypt`],
    ['POST', `/v1/keys/${k}/explode`],
    ['DELETE', '/v1/audit'],
    ['POST', '/readyz'],
    ['GET', '/v1/nope/'],
    ['GET', '//v1//nope'],
    ['GET', '/v1/keys/%2e%2e/%2e%2e/metrics'],
    ['OPTIONS', '/v1/keys'],
    ['TRACE', '/v1/keys'],
    ['GET', '/v2/keys'],
    ['GET', `/v1/keys/${k}/encrypt/extra/segments`],
  ] as Array<[string, string]>);
  return post(
    'unknown-route',
    `${method} (unknown)`,
    path,
    h,
    method === 'POST' || method === 'PUT' ? { a: 1 } : undefined,
    method,
  );
};

const tooLarge: Maker = (cast, rnd) => {
  const req = base(cast, rnd, BODY_BASES, 'too-large');
  return { ...req, body: JSON.stringify({ plaintextBase64: 'A'.repeat(1_100_000 + rnd.int(0, 100_000)) }) };
};
const longTarget: Maker = (cast, rnd) =>
  post(
    'long-target',
    'GET /v1/audit',
    `/v1/audit?actor=${'a'.repeat(rnd.pick([5_000, 9_000, 20_000]))}`,
    cast.auth('auditor'),
    undefined,
    'GET',
  );
const bigHeaders: Maker = (cast, rnd) => {
  const req = base(cast, rnd, BASES, 'big-headers');
  return { ...req, headers: { ...req.headers, 'x-padding': 'p'.repeat(rnd.pick([4_000, 20_000])) } };
};

const locateBad: Maker = (cast, rnd) => {
  const h = cast.auth(rnd.pick(['admin', 'keeper'] as Role[]));
  const cursor = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
  const uuid = anyKey(cast, rnd);
  const iso = new Date(Date.now() - 60_000).toISOString();
  const q = (query: string, kind = 'locate') => post(kind, 'GET /v1/keys', `/v1/keys?${query}`, h, undefined, 'GET');
  return rnd.pick([
    // Forged cursors: not base64url, padded, another version, a bad date or id, too long; and one well formed that this
    // service never gave out.
    () =>
      q(
        `cursor=${rnd.pick(['garbage!', `${cursor(`1|${iso}|${uuid}`)}=`, cursor(`2|${iso}|${uuid}`), cursor(`1|${iso}|not-a-uuid`), cursor(`1|2026-13-45T99:00:00.000Z|${uuid}`), cursor(`1|${iso}|${uuid}|more`), cursor('1||'), 'x'.repeat(201), '%00', cursor(`1|${iso}|${uuid.toUpperCase()}`), '__proto__'])}`,
        'forged-cursor',
      ),
    () => q(`name=fuzz-*&limit=1&cursor=${cursor(`1|${iso}|${uuid}`)}`, 'forged-cursor'),
    () =>
      q(
        `limit=${rnd.pick(['0', '1001', '-1', 'abc', '1.5', '', '1e3', '99999999999999999999', '%00'])}`,
        'locate-bad-limit',
      ),
    () =>
      q(
        `${rnd.pick(['createdAfter', 'createdBefore'])}=${rnd.pick(['not-a-date', '2026-13-45T99:00:00Z', '0', '9999999-01-01', '%00', 'x'.repeat(65), '2026-02-30', 'yesterday'])}`,
        'locate-bad-date',
      ),
    () =>
      q(
        `name=${rnd.pick(['**', encodeURIComponent('*'.repeat(256)), '%5Ba-z%5D*', '.*', '(a%2B)%2B%24', '%25', '%3F', '', 'n'.repeat(257), '%5C*', '%00*', `${'*a'.repeat(120)}`, '%E2%80%AE*'])}`,
        'locate-glob',
      ),
    () =>
      q(
        rnd.pick([
          'nmae=x',
          'state=Bogus',
          'algorithm=DES',
          'limit=1&limit=2',
          '__proto__=1',
          'owner=',
          `owner=${'o'.repeat(1025)}`,
          'state=active',
          'constructor=x',
          'name=a&name=b',
        ]),
        'locate-bad-filter',
      ),
    // The router takes a trailing slash as the same route: this is Locate.
    () => post('locate-trailing-slash', 'GET /v1/keys', '/v1/keys/', h, undefined, 'GET'),
    () =>
      post(
        'out-of-role',
        'GET /v1/keys',
        '/v1/keys?limit=10',
        cast.auth(rnd.pick(['signer', 'service', 'auditor', 'mallory'] as Role[])),
        undefined,
        'GET',
      ),
  ])();
};

/** A batch of a thousand and one items: a tiny body, refused before any work. */
const tooMany = (item: Record<string, unknown>) => Array.from({ length: 1001 }, () => item);

const batchBad: Maker = (cast, rnd) => {
  const h = cast.auth('admin');
  const aes = anyKey(
    cast,
    rnd,
    cast.core.filter((k) => k.algorithm === 'AES' && k.owner !== 'service'),
  );
  const ec = anyKey(
    cast,
    rnd,
    cast.core.filter((k) => k.algorithm === 'EC'),
  );
  const [op, id, item] = rnd.pick([
    ['encrypt', aes, { plaintextBase64: 'aGk=' }],
    ['decrypt', aes, { ciphertextBase64: 'AAAA' }],
    ['sign', ec, { messageBase64: 'aGk=' }],
    ['verify', ec, { messageBase64: 'aGk=', signatureBase64: 'AAAA' }],
  ] as Array<[string, string, Record<string, unknown>]>);
  const items = rnd.pick<unknown>([
    [],
    tooMany(item),
    'x',
    null,
    {},
    [1, 2],
    [[item]],
    [{}],
    [{ ...item, extra: 1 }],
    [item, null],
    [{ ...item, context: 'not an object' }],
    [{ items: [item] }],
    Array.from({ length: 3 }, () => ({ ...item, [rnd.pick(Object.keys(item))]: rnd.pick(WRONG_TYPES) })),
  ]);
  const body = rnd.chance(0.2) ? { ...item, items } : { items };
  return post(
    Array.isArray(items) && (items.length === 0 || items.length > 1000) ? 'batch-size' : 'batch-shape',
    `POST /v1/keys/:id/${op} {items}`,
    `/v1/keys/${id}/${op}`,
    h,
    body,
  );
};

const keyOpsBad: Maker = (cast, rnd) => {
  const h = cast.auth('admin');
  const aes = () =>
    anyKey(
      cast,
      rnd,
      cast.core.filter((k) => k.algorithm === 'AES' && k.owner !== 'service'),
    );
  const serviceAes = anyKey(
    cast,
    rnd,
    cast.core.filter((k) => k.algorithm === 'AES' && k.owner === 'service'),
  );
  const nonAes = anyKey(
    cast,
    rnd,
    cast.core.filter((k) => k.algorithm !== 'AES'),
  );
  const scratch = anyKey(cast, rnd, cast.scratch);
  const retired = cast.retired.length ? rnd.pick(cast.retired) : '00000000-0000-4000-8000-000000000000';
  const sample = cast.core.filter((k) => cast.sampleOf(k.id).ciphertexts.length && k.owner !== 'service');
  const agent = cast.agents.length ? rnd.pick(cast.agents) : undefined;
  const ah = agent ? { authorization: `Bearer ${agent.jwt}` } : cast.auth('mallory');
  return rnd.pick([
    () =>
      post('data-key', 'POST /v1/keys/:id/data-key', `/v1/keys/${aes()}/data-key`, h, {
        sizeBits: rnd.pick([0, 64, 100, 512, '256', 256.5]),
      }),
    () =>
      post(
        'data-key',
        'POST /v1/keys/:id/data-key',
        `/v1/keys/${aes()}/data-key`,
        h,
        rnd.pick([{ plaintext: 'yes' }, { context: { a: 1 } }, { context: 'x' }, { keyVersion: 1 }]),
      ),
    () => post('wrong-key-type', 'POST /v1/keys/:id/data-key', `/v1/keys/${nonAes}/data-key`, h, {}),
    () => post('retired-key', 'POST /v1/keys/:id/data-key', `/v1/keys/${retired}/data-key`, h, {}),
    () =>
      post('reencrypt', 'POST /v1/keys/:id/reencrypt', `/v1/keys/${aes()}/reencrypt`, h, {
        ciphertextBase64: rnd.pick(['AAAA', '!!!!', rnd.bytes(80).toString('base64')]),
      }),
    () => {
      const key = sample.length ? rnd.pick(sample) : undefined;
      const c = key ? rnd.pick(cast.sampleOf(key.id).ciphertexts) : { c: 'AAAA' };
      const dest = rnd.pick([nonAes, retired, 'not-a-uuid', '00000000-0000-4000-8000-000000000000', serviceAes, '']);
      return post('reencrypt', 'POST /v1/keys/:id/reencrypt', `/v1/keys/${key?.id ?? aes()}/reencrypt`, h, {
        ciphertextBase64: c.c,
        ...(c.context ? { context: c.context } : {}),
        destinationKeyId: dest,
        ...(rnd.chance(0.3) ? { destinationContext: { a: 1 } } : {}),
      });
    },
    // The Service re-encrypting its ciphertext under a key it does not own.
    () =>
      post('reencrypt', 'POST /v1/keys/:id/reencrypt', `/v1/keys/${serviceAes}/reencrypt`, cast.auth('service'), {
        ciphertextBase64: 'AAAA',
        destinationKeyId: aes(),
      }),
    () =>
      post(
        'export',
        'POST /v1/keys/:id/export',
        `/v1/keys/${anyKey(
          cast,
          rnd,
          cast.core.filter((k) => k.spec.exportable !== true),
        )}/export`,
        h,
        {},
      ),
    () =>
      post(
        'export',
        'POST /v1/keys/:id/export',
        `/v1/keys/${anyKey(
          cast,
          rnd,
          cast.core.filter((k) => k.spec.exportable === true),
        )}/export`,
        h,
        { version: rnd.pick([0, -1, 999, 'latest', 1.5]) },
      ),
    () =>
      post(
        'export',
        'POST /v1/keys/:id/export',
        `/v1/keys/${anyKey(
          cast,
          rnd,
          cast.core.filter((k) => k.spec.exportable === true),
        )}/export`,
        rnd.chance(0.5) ? ah : cast.auth('service'),
        {},
      ),
    () => post('export', 'POST /v1/keys/:id/export', `/v1/keys/${retired}/export`, h, {}),
    () =>
      post(
        'destroy-waiting',
        'DELETE /v1/keys/:id',
        `/v1/keys/${rnd.chance(0.5) ? retired : scratch}?waitingDays=${rnd.pick(['-1', '31', 'abc', '1.5', '', '1e1', '%00', '7&waitingDays=8'])}`,
        h,
        undefined,
        'DELETE',
      ),
    () =>
      post(
        'destroy-waiting',
        'DELETE /v1/keys/:id',
        `/v1/keys/${scratch}?waitingDays=3&force=true`,
        h,
        undefined,
        'DELETE',
      ),
    () =>
      post(
        'cancel-destroy',
        'POST /v1/keys/:id/cancel-destroy',
        `/v1/keys/${rnd.pick([scratch, retired, aes()])}/cancel-destroy`,
        rnd.pick([h, ah, cast.auth('service'), cast.auth('signer')]),
      ),
    () =>
      post(
        'trim',
        'POST /v1/keys/:id/trim',
        `/v1/keys/${rnd.chance(0.5) ? scratch : retired}/trim`,
        h,
        rnd.pick([{ minVersion: rnd.pick([0, 1, 999_999, 1e12, '2', null]) }, {}, { minVersion: 2, extra: 1 }]),
      ),
    () =>
      post(
        'trim',
        'POST /v1/keys/:id/trim',
        `/v1/keys/${scratch}/trim`,
        rnd.pick([ah, cast.auth('service'), cast.auth('signer')]),
        { minVersion: 2 },
      ),
  ])();
};

/** Import with garbage: a made-up or spent token, material that is no wrapping, by someone who may not. */
const importBad: Maker = (cast, rnd) => {
  const h = cast.auth('admin');
  const token =
    cast.importTokens.length && rnd.chance(0.6)
      ? rnd.pick(cast.importTokens)
      : rnd.pick(['garbage', 'x'.repeat(129), '', '00000000-0000-4000-8000-000000000000', 'eyJhbGciOiJub25lIn0.e30.']);
  const wrapped = rnd.pick([
    'AAAA',
    rnd.bytes(rnd.pick([16, 384, 420, 1000])).toString('base64'),
    '!!!!',
    '',
    'A'.repeat(16_385),
  ]);
  const spec = rnd.pick([
    { name: 'imported', algorithm: 'AES', sizeBits: 256 },
    { name: 'imported-ec', algorithm: 'EC', curve: 'P-256' },
    { name: 'imported-rsa', algorithm: 'RSA', sizeBits: 2048 },
    { algorithm: 'AES' },
  ]);
  const agent = cast.agents.length ? rnd.pick(cast.agents) : undefined;
  return rnd.pick([
    () =>
      post('import', 'POST /v1/keys/import', '/v1/keys/import', h, {
        spec,
        importToken: token,
        wrappedMaterialBase64: wrapped,
      }),
    () =>
      post(
        'import',
        'POST /v1/keys/import',
        '/v1/keys/import',
        h,
        rnd.pick([
          { spec, importToken: token },
          { importToken: token, wrappedMaterialBase64: wrapped },
          { spec, importToken: 1, wrappedMaterialBase64: wrapped },
        ]),
      ),
    () =>
      post(
        'import',
        'POST /v1/keys/import',
        '/v1/keys/import',
        agent ? { authorization: `Bearer ${agent.jwt}` } : cast.auth('mallory'),
        { spec, importToken: token, wrappedMaterialBase64: wrapped },
      ),
    // Refused before any wrapping key is made: an unknown algorithm or field, or an agent asking.
    () =>
      post(
        'import',
        'POST /v1/keys/import-parameters',
        '/v1/keys/import-parameters',
        h,
        rnd.pick([{ algorithm: 'DES' }, { algorithm: 'AES', extra: 1 }, {}, { algorithm: 'AES', sizeBits: 'big' }]),
      ),
    () =>
      post(
        'import',
        'POST /v1/keys/import-parameters',
        '/v1/keys/import-parameters',
        agent ? { authorization: `Bearer ${agent.jwt}` } : cast.auth('auditor'),
        { algorithm: 'AES', sizeBits: 256 },
      ),
  ])();
};

/** Hostile makers and their weights (per thousand requests of the hostile part). */
export const HOSTILE: Record<string, { weight: number; make: Maker }> = {
  wrongType: { weight: 90, make: wrongType },
  unknownField: { weight: 60, make: unknownField },
  controlChars: { weight: 80, make: controlChars },
  badBase64: { weight: 70, make: badBase64 },
  hugeValue: { weight: 15, make: hugeValue },
  deepValue: { weight: 15, make: deepValue },
  malformedJson: { weight: 60, make: malformedJson },
  wrongContentType: { weight: 30, make: wrongContentType },
  badCredential: { weight: 120, make: badCredential },
  agentOutOfScope: { weight: 70, make: agentOutOfScope },
  outOfRole: { weight: 70, make: outOfRole },
  badId: { weight: 100, make: badId },
  wrongKey: { weight: 70, make: wrongKey },
  retiredKey: { weight: 40, make: retiredKey },
  badQuery: { weight: 60, make: badQuery },
  unknownRoute: { weight: 30, make: unknownRoute },
  tooLarge: { weight: 5, make: tooLarge },
  longTarget: { weight: 5, make: longTarget },
  bigHeaders: { weight: 5, make: bigHeaders },
  locateBad: { weight: 35, make: locateBad },
  batchBad: { weight: 25, make: batchBad },
  keyOpsBad: { weight: 50, make: keyOpsBad },
  importBad: { weight: 10, make: importBad },
};
