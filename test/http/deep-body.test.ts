import t from 'tap';
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../../kernel/http/json-text.ts';
import { startTestService } from '../helpers/service.ts';

const svc = await startTestService({});
t.teardown(() => svc.stop());
const api = svc.client('ops');
const json = { 'Content-Type': 'application/json' };
const nested = (depth: number, open = '[', close = ']') => `${open.repeat(depth)}1${close.repeat(depth)}`;

t.test(
  'a body nested 100,000 or 300,000 levels deep (600 KB, within the size ' +
    'limit) is 400 before it is parsed, and creates nothing',
  async (t) => {
    for (const deep of [nested(300_000), nested(100_000, '{"a":', '}')]) {
      const res = await api.call('POST', '/v1/keys', `{"spec":{"name":"deep","algorithm":"AES"},"deep":${deep}}`, json);
      t.equal(res.status, 400);
      t.same(res.body, { error: 'BadRequest', message: `request body is nested deeper than ${MAX_JSON_DEPTH} levels` });
    }
    const created = (await api.get('/v1/audit?operation=Create&limit=100')).body.records.filter(
      (r: { outcome: string }) => r.outcome === 'Success',
    );
    t.same(created, [], 'no key was made');
    t.equal(
      (await api.post('/v1/keys', { spec: { name: 'after', algorithm: 'AES' } })).status,
      201,
      'the next caller is served',
    );
  },
);

t.test('nesting up to the limit is read as before; brackets inside strings do not count', async (t) => {
  const atLimit = await api.call(
    'POST',
    '/v1/keys',
    `{"spec":{"name":"x","algorithm":"AES"},"extra":${nested(MAX_JSON_DEPTH - 1)}}`,
    json,
  );
  t.equal(atLimit.status, 400);
  t.not(
    atLimit.body.message,
    `request body is nested deeper than ${MAX_JSON_DEPTH} levels`,
    'refused for its unknown field, not its depth',
  );
  t.equal(
    nestedDeeperThan(`{"a":"${'['.repeat(500)}\\"${'{'.repeat(500)}"}`, MAX_JSON_DEPTH),
    false,
    'brackets and escaped quotes inside a string are text',
  );
  t.equal(nestedDeeperThan(nested(MAX_JSON_DEPTH), MAX_JSON_DEPTH), false);
  t.equal(nestedDeeperThan(nested(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH), true);
});

t.test('what the JSON reader refused before it still refuses', async (t) => {
  for (const body of [
    '{"spec": {',
    '[1,2]',
    '"just a string"',
    'null',
    '\ufeff{}',
    '{"__proto__":{"admin":true}}',
    '{"spec":{"\\u005f_proto__":{}}}',
  ]) {
    const res = await api.call('POST', '/v1/keys', body, json);
    t.equal(res.status, 400, body);
    t.equal(res.body.error, 'BadRequest');
  }
  t.same((await api.call('POST', '/v1/keys', '{"spec": {', json)).body, {
    error: 'BadRequest',
    message: 'request body is not valid JSON',
  });
});
