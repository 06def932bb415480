import { randomUUID } from 'node:crypto';
import t from 'tap';
import { freshDatabase } from '../helpers/databases.ts';
import { insiderSql } from '../helpers/insider-sql.ts';
import { ApiClient, b64 } from '../helpers/client.ts';
import { startTestService } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

// Risk gating off: an agent's first calls on a key would otherwise be stepped up before their input is read.
const auth = { SVC_AUTH_KIND: 'hmac', SVC_AUTH_HMAC_SECRET: TEST_SECRET, SVC_RISK_ENABLED: 'false' };
const named = (model: string, promptId: string) => ({ 'X-Svc-Model': model, 'X-Svc-Prompt-Id': promptId });

interface Row {
  id: string;
  outcome: string;
  operation: string;
  principal: { subject: string; kind: string };
  context: Record<string, string>;
  correlationId: string;
}

/**
 * A caller names the model and the prompt it acts for with X-Svc-Model and X-Svc-Prompt-Id: whatever
 * the principal's kind, they land in the call's audit context, GET /v1/audit?promptId= reads exactly
 * that prompt's records back (from an indexed column on the SQL sinks), and advisor explain groups an
 * agent's timeline by them. A value too long or holding a control character is the call's 400.
 */
for (const kind of ['sqlite', 'postgresql'] as const) {
  t.test(
    `${kind}: model and prompt id are audited for a Human and an agent, and promptId filters the trail`,
    async (t) => {
      const db = kind === 'sqlite' ? undefined : await freshDatabase(t, kind);
      if (kind !== 'sqlite' && !db) return;
      const svc = await startTestService({ ...auth, ...(db?.env ?? {}) });
      t.teardown(() => svc.stop());
      const alice = new ApiClient(svc.url, { Authorization: `Bearer ${await mintToken({ sub: 'alice' })}` });
      const key = await alice.key({ name: `prompted-${randomUUID()}`, algorithm: 'AES' });

      const human = await alice.call(
        'POST',
        `/v1/keys/${key}/encrypt`,
        { plaintextBase64: b64('hi') },
        named('claude-test-1', 'prompt-A'),
      );
      t.equal(human.status, 200);
      const issued = (
        await alice.post('/v1/agents/issue', { label: 'bot', scopes: ['Encrypt', 'Get'], ttlSeconds: 3600 })
      ).body;
      const agent = new ApiClient(svc.url, { Authorization: `Bearer ${issued.jwt}` });
      for (const promptId of ['prompt-A', 'prompt-B', 'prompt-A']) {
        t.equal(
          (
            await agent.call(
              'POST',
              `/v1/keys/${key}/encrypt`,
              { plaintextBase64: b64('x') },
              named('gpt-test', promptId),
            )
          ).status,
          200,
        );
      }
      t.equal(
        (await agent.call('GET', `/v1/keys/${key}`, undefined, { 'X-Svc-Prompt-Id': 'prompt-C' })).status,
        200,
        'one header alone',
      );
      t.equal(
        (await agent.post(`/v1/keys/${key}/encrypt`, { plaintextBase64: b64('x') })).status,
        200,
        'no header: no prompt',
      );

      const read = async (query: string): Promise<Row[]> => {
        const page = await alice.get(`/v1/audit?${query}&limit=100`);
        t.equal(page.status, 200, JSON.stringify(page.body));
        return page.body.records;
      };
      const a = await read('promptId=prompt-A');
      t.same(
        a.map((r) => `${r.principal.kind}:${r.operation}`),
        ['Agent:Encrypt', 'Agent:Encrypt', 'Human:Encrypt'],
        "exactly prompt-A's three records, newest first",
      );
      t.match(
        a.at(-1)!.context,
        { 'agent.model': 'claude-test-1', 'agent.promptId': 'prompt-A', door: 'http' },
        "a Human's call carries them too",
      );
      t.match(a[0]!.context, { 'agent.model': 'gpt-test', 'agent.promptId': 'prompt-A' });
      t.same((await read('promptId=prompt-B')).length, 1);
      const c = await read('promptId=prompt-C');
      t.equal(c.length, 1);
      t.equal(c[0]!.context['agent.model'], undefined, 'a header left out is not recorded');
      t.same(await read('promptId=prompt'), [], 'an exact match, not a prefix');
      t.same((await read(`promptId=prompt-A&actor=alice`)).length, 1, 'combines with the other filters');
      const unnamed = (await read(`actor=${issued.agentId}&op=Encrypt`)).filter((r) => !r.context['agent.promptId']);
      t.equal(unnamed.length, 1, 'the call without headers has no prompt in its context');

      t.match(
        (await alice.get('/v1/audit/verify?full=true')).body,
        { valid: true },
        'the chain is intact with the prompt column',
      );

      const explained = await alice.get(`/v1/advisor/explain/${issued.agentId}`);
      t.equal(explained.status, 200, JSON.stringify(explained.body));
      t.match(
        explained.body.prompts,
        [
          { promptId: 'prompt-A', models: ['gpt-test'], events: 2, refused: 0 },
          { promptId: 'prompt-B', models: ['gpt-test'], events: 1 },
          { promptId: 'prompt-C', models: [], events: 1 },
          { promptId: null, models: [], events: 1 },
        ],
        'the timeline grouped by prompt, calls naming none in one group',
      );
      t.equal(explained.body.prompts.length, 4);
      t.match(explained.body.events[0], { promptId: 'prompt-A', model: 'gpt-test' });
      t.match(explained.body.summary, /for 3 named prompt\(s\) and calls naming none/);

      // The filter reads an indexed copy of the context's prompt id, outside the hash: an insider who moves a
      // row out of its prompt (so the filter misses it) leaves a row whose copy no longer matches its context.
      insiderSql(svc.dir, db, `update svc_audit set prompt_id = 'elsewhere' where event_id = '${a[0]!.id}'`);
      t.equal((await read('promptId=prompt-A')).length, 2, 'the moved row no longer shows under its prompt');
      t.match((await alice.get('/v1/audit/verify?full=true')).body, {
        valid: false,
        firstBroken: { id: a[0]!.id, reason: /prompt_id does not match/ },
      });
    },
  );
}

t.test(
  'a model or prompt id over 128 characters, or with a control character, ' +
    'is 400 InvalidField naming the header, audited as a failure',
  async (t) => {
    const svc = await startTestService(auth);
    t.teardown(() => svc.stop());
    const alice = new ApiClient(svc.url, { Authorization: `Bearer ${await mintToken({ sub: 'alice' })}` });
    const key = await alice.key({ name: `prompted-${randomUUID()}`, algorithm: 'AES' });
    const issued = (await alice.post('/v1/agents/issue', { label: 'bot', scopes: ['Encrypt'], ttlSeconds: 3600 })).body;
    const agent = new ApiClient(svc.url, { Authorization: `Bearer ${issued.jwt}` });

    t.equal(
      (
        await agent.call(
          'POST',
          `/v1/keys/${key}/encrypt`,
          { plaintextBase64: b64('x') },
          { 'X-Svc-Prompt-Id': 'p'.repeat(128) },
        )
      ).status,
      200,
      '128 characters are fine',
    );
    const cases: Array<[string, Record<string, string>, RegExp]> = [
      [
        '129-character prompt id',
        { 'X-Svc-Prompt-Id': 'p'.repeat(129) },
        /^X-Svc-Prompt-Id must be at most 128 characters$/,
      ],
      ['129-character model', { 'X-Svc-Model': 'm'.repeat(129) }, /^X-Svc-Model must be at most 128 characters$/],
      [
        'a C1 control character (NEL)',
        { 'X-Svc-Model': 'gpt\u0085forged' },
        /^X-Svc-Model must not contain control, line or paragraph separator, bidirectional or zero-width characters$/,
      ],
      [
        'a tab',
        { 'X-Svc-Prompt-Id': 'a\tb' },
        /^X-Svc-Prompt-Id must not contain control, line or paragraph separator, bidirectional or zero-width characters$/,
      ],
    ];
    for (const [what, headers, message] of cases) {
      const res = await agent.call('POST', `/v1/keys/${key}/encrypt`, { plaintextBase64: b64('x') }, headers);
      t.equal(res.status, 400, what);
      t.match(res.body, { error: 'InvalidField', message }, what);
      const requestId = res.headers.get('x-request-id');
      const records: Row[] = (await alice.get(`/v1/audit?actor=${issued.agentId}&limit=100`)).body.records.filter(
        (r: Row) => r.correlationId === requestId,
      );
      t.equal(records.length, 1, `${what}: one record`);
      t.match(records[0], { operation: 'Encrypt', outcome: 'InvalidField' }, `${what}: audited as a failure`);
      t.equal(records[0]!.context['agent.promptId'], undefined, `${what}: the refused value is not recorded`);
      t.equal(records[0]!.context['agent.model'], undefined);
    }
    const human = await alice.call('GET', `/v1/keys/${key}`, undefined, { 'X-Svc-Model': 'x'.repeat(200) });
    t.match(human, { status: 400, body: { error: 'InvalidField' } }, 'the same for a Human');
    const query = await alice.get(`/v1/audit?promptId=${'p'.repeat(129)}`);
    t.match(
      query,
      { status: 400, body: { error: 'InvalidField' } },
      'a promptId filter longer than any prompt id is refused',
    );
  },
);
