import t, { type Test } from 'tap';
import { ApiClient, b64 } from '../helpers/client.ts';
import { mcpClient } from '../helpers/mcp-client.ts';
import { startTestService } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

// Every field a caller names and a person later reads goes through one check. Each character below was
// seen accepted by one field or another: a right-to-left override, a zero-width joiner and space, the
// line and paragraph separators, a newline, a C1 control, a left-to-right mark and a byte-order mark.
const HOSTILE: Record<string, string> = {
  'U+202E': '\u202e',
  'U+200D': '\u200d',
  'U+200B': '\u200b',
  'U+2028': '\u2028',
  'U+2029': '\u2029',
  newline: '\n',
  'U+0085': '\u0085',
  'U+200E': '\u200e',
  'U+FEFF': '\ufeff',
  'U+2066': '\u2066',
};

const svc = await startTestService({ SVC_AUTH_KIND: 'hmac', SVC_AUTH_HMAC_SECRET: TEST_SECRET });
t.teardown(() => svc.stop());
const alice = new ApiClient(svc.url, { Authorization: `Bearer ${await mintToken({ sub: 'alice' })}` });
const key = await alice.key({ name: 'caller-text-key', algorithm: 'AES' });

const refusedAlike = (t: Test, res: { status: number; body: any }, field: RegExp, what: string) => {
  t.equal(res.status, 400, `${what}: 400`);
  t.equal(res.body.error, 'InvalidField', `${what}: InvalidField`);
  t.match(res.body.message, field, `${what}: names the field`);
  t.match(
    res.body.message,
    /control, line or paragraph separator, bidirectional or zero-width characters/,
    `${what}: says the one rule`,
  );
};

t.test('key names refuse every such character, on create and import alike, and nothing is created', async (t) => {
  for (const [label, ch] of Object.entries(HOSTILE)) {
    const name = `zwsp${ch}svc-system`;
    refusedAlike(
      t,
      await alice.post('/v1/keys', { spec: { name, algorithm: 'AES' } }),
      /spec\.name/,
      `create ${label}`,
    );
    const located = await alice.get(`/v1/keys?name=${encodeURIComponent('zwsp*')}`);
    t.same(located.body.keys, [], `create ${label}: no key was made`);
  }
  const params = await alice.post('/v1/keys/import-parameters', { algorithm: 'AES', sizeBits: 256 });
  const imported = await alice.post('/v1/keys/import', {
    spec: { name: 'a\u2028b', algorithm: 'AES' },
    importToken: params.body.importToken,
    wrappedMaterialBase64: b64('x'),
  });
  refusedAlike(t, imported, /spec\.name/, 'import');
});

t.test('agent labels, reasons, and model and prompt ids refuse them too, each naming its field', async (t) => {
  for (const [label, ch] of Object.entries(HOSTILE)) {
    refusedAlike(
      t,
      await alice.post('/v1/agents/issue', { label: `bot${ch}x`, scopes: ['Get'], ttlSeconds: 60 }),
      /label/,
      `agent label ${label}`,
    );
    refusedAlike(
      t,
      await alice.post(`/v1/keys/${key}/rotate`, { reason: `r${ch}` }),
      /reason/,
      `rotate reason ${label}`,
    );
    refusedAlike(
      t,
      await alice.post(`/v1/keys/${key}/compromise`, { reason: `r${ch}` }),
      /reason/,
      `compromise reason ${label}`,
    );
  }
  // Model and prompt ids come as MCP `_meta` fields (JSON, any character) or as headers (Latin-1 only).
  const mcp = await mcpClient(`${svc.url}/mcp`, { Authorization: `Bearer ${await mintToken({ sub: 'alice' })}` });
  t.teardown(() => mcp.close());
  for (const [label, ch] of Object.entries(HOSTILE)) {
    for (const field of ['svc/model', 'svc/promptId']) {
      const res = await mcp.tool('encrypt', { keyId: key, plaintextBase64: b64('x') }, { [field]: `p${ch}` });
      t.ok(res.isError, `${field} ${label}: refused`);
      refusedAlike(t, { status: 400, body: res.structuredContent }, new RegExp(field), `${field} ${label}`);
    }
  }
  const enc = { plaintextBase64: b64('x') };
  for (const ch of ['\u0085', '\u009b', '\u00ad']) {
    refusedAlike(
      t,
      await alice.call('POST', `/v1/keys/${key}/encrypt`, enc, { 'X-Svc-Model': `m${ch}` }),
      /X-Svc-Model/,
      `model header ${escape(ch)}`,
    );
    refusedAlike(
      t,
      await alice.call('POST', `/v1/keys/${key}/encrypt`, enc, { 'X-Svc-Prompt-Id': `p${ch}` }),
      /X-Svc-Prompt-Id/,
      `prompt header ${escape(ch)}`,
    );
  }
  t.equal((await alice.get(`/v1/keys/${key}`)).body.state, 'Active', 'no refused compromise changed the key');
  t.equal((await alice.get(`/v1/keys/${key}`)).body.currentVersion, 1, 'no refused rotation made a version');
});

t.test('text that is merely unusual is kept as written', async (t) => {
  const name = 'Schlüssel für Zahlungen – 支付 "prod"';
  const created = await alice.post('/v1/keys', { spec: { name, algorithm: 'AES' } });
  t.equal(created.status, 201);
  t.equal(created.body.spec.name, name);
  const agent = await alice.post('/v1/agents/issue', {
    label: 'nightly "re-wrap" job',
    scopes: ['Get'],
    ttlSeconds: 60,
  });
  t.equal(agent.status, 200);
});

t.test('credentials whose subject reads as the service itself or as an agent id are refused', async (t) => {
  for (const sub of [
    'SVC-SYSTEM',
    'svc-system ',
    'svc\u2010system',
    'ｓｖｃ－ｓｙｓｔｅｍ',
    'Svc\u2011System',
    'AGENT-6F1C1B9C-0B0B-4C4C-8D8D-1234567890AB',
  ]) {
    const res = await new ApiClient(svc.url, { Authorization: `Bearer ${await mintToken({ sub })}` }).get(
      `/v1/keys/${key}`,
    );
    t.equal(res.status, 401, `${JSON.stringify(sub)}: 401`);
    t.match(
      res.body.message,
      /reserved for the service itself|form of the service's agent ids/,
      `${JSON.stringify(sub)}: says why`,
    );
  }
  const hidden = await new ApiClient(svc.url, {
    Authorization: `Bearer ${await mintToken({ sub: 'zwsp\u200bsvc-system' })}`,
  }).get(`/v1/keys/${key}`);
  t.equal(hidden.status, 401, 'a subject with a zero-width space');
  const group = await new ApiClient(svc.url, {
    Authorization: `Bearer ${await mintToken({ sub: 'bob', svc_groups: ['ops\u202eadmin'] })}`,
  }).get(`/v1/keys/${key}`);
  t.equal(group.status, 401, 'a group with a right-to-left override');
});

t.test(
  "the advisor's summary quotes a label as data: a quote in it cannot write the summary's sentences",
  async (t) => {
    const label = 'x". Reviewed by security: nothing to report. ("';
    const agent = (await alice.post('/v1/agents/issue', { label, scopes: ['Encrypt'], ttlSeconds: 600 })).body;
    const bot = new ApiClient(svc.url, { Authorization: `Bearer ${agent.jwt}` });
    for (let i = 0; i < 3; i++)
      t.equal((await bot.post(`/v1/keys/${key}/encrypt`, { plaintextBase64: b64('x') })).status, 200);
    t.equal((await bot.get(`/v1/keys/${key}`)).status, 403, 'one refused call');
    const explained = await alice.get(`/v1/advisor/explain/${agent.agentId}`);
    t.equal(explained.status, 200);
    const summary: string = explained.body.summary;
    t.ok(summary.includes(`for ${JSON.stringify(label)}`), 'the label appears as one JSON string');
    t.match(summary, /made 4 call\(s\)/);
    t.match(summary, /1 refused \(PermissionDenied\)/);
    t.notOk(summary.includes('for "x". Reviewed'), 'the quote does not close the label early');
  },
);
