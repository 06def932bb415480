import t, { type Test } from 'tap';
import { ApiClient, b64, type ApiResponse } from '../helpers/client.ts';
import { startTestService } from '../helpers/service.ts';

/** Names every plain object answers to through its prototype. */
const PROTOTYPE_NAMES = [
  'constructor',
  '__proto__',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  '__defineGetter__',
  '__lookupGetter__',
];

const svc = await startTestService();
t.teardown(() => svc.stop());
const api = svc.client('alice');
const anonymous = new ApiClient(svc.url);

/** A refusal as callers must see it: the expected status, `{error, message}` and nothing else. */
function refused(t: Test, res: ApiResponse, status: number, error: string, what: string): void {
  t.equal(res.status, status, `${what}: ${status}`);
  t.same(Object.keys(res.body ?? {}).sort(), ['error', 'message'], `${what}: {error, message} only`);
  t.equal(res.body?.error, error, `${what}: ${error}`);
  t.notMatch(JSON.stringify(res.body), /\bat \S+ \(|\.ts:\d+|TypeError/, `${what}: no stack`);
}

t.test('a documentation asset named like a prototype member is 404, not a 500 with a stack', async (t) => {
  for (const name of PROTOTYPE_NAMES)
    refused(t, await anonymous.get(`/docs/assets/ui/${name}`), 404, 'NotFound', `/docs/assets/ui/${name}`);
  t.equal((await anonymous.get('/docs/assets/ui/svc-docs.js')).status, 200, 'a real asset is still served');
  t.same(
    svc.logs.filter((l) => l.includes('unhandled error')),
    [],
    'nothing reached the unhandled-error path',
  );
});

t.test(
  'a rotation-policy unit named like a prototype member is refused, not stored as a policy of NaN seconds',
  async (t) => {
    const id = await api.key({ algorithm: 'AES' });
    for (const name of PROTOTYPE_NAMES.filter((n) => /^[a-z]+$/.test(n))) {
      refused(
        t,
        await api.post(`/v1/keys/${id}/rotate`, { policy: `TimeBased:1${name}` }),
        400,
        'InvalidField',
        `policy TimeBased:1${name}`,
      );
    }
    t.equal((await api.get(`/v1/keys/${id}`)).body.currentVersion, 1, 'no rotation happened');
    t.equal(
      (await api.post(`/v1/keys/${id}/rotate`, { policy: 'TimeBased:7days' })).status,
      200,
      'a real unit is still accepted',
    );
  },
);

t.test('a signature algorithm named like a prototype member is refused as an unknown algorithm', async (t) => {
  const id = await api.key({ algorithm: 'EC' });
  for (const name of PROTOTYPE_NAMES) {
    const res = await api.post(`/v1/keys/${id}/sign`, { messageBase64: b64('m'), algorithm: name });
    refused(t, res, 400, 'InvalidField', `algorithm ${name}`);
    t.match(
      res.body.message,
      /^algorithm must be one of /,
      `algorithm ${name}: named as unknown, not as an algorithm that does not fit`,
    );
  }
});

t.test(
  'every path and query field of every route, given a prototype name, ' +
    'answers without a server error, refusals as {error, message}',
  async (t) => {
    const doc = (await import('yaml')).parse((await anonymous.get('/docs/docs.yaml')).body);
    for (const [path, methods] of Object.entries<Record<string, { parameters?: Array<{ in: string; name: string }> }>>(
      doc.paths,
    )) {
      for (const [method, op] of Object.entries(methods)) {
        if (!['get', 'post', 'delete'].includes(method) || !(op.parameters ?? []).length) continue;
        for (const name of PROTOTYPE_NAMES) {
          const query = (op.parameters ?? [])
            .filter((p) => p.in === 'query')
            .map((p) => `${p.name}=${encodeURIComponent(name)}`)
            .join('&');
          const target = `${path.replace(/\{\w+\}/g, encodeURIComponent(name))}${query ? `?${query}` : ''}`;
          const res = await api.call(method.toUpperCase(), target, method === 'get' ? undefined : {});
          t.ok(res.status < 500, `${method} ${target}: ${res.status}`);
          if (res.status >= 400)
            t.same(Object.keys(res.body ?? {}).sort(), ['error', 'message'], `${method} ${target}: {error, message}`);
        }
      }
    }
    t.same(
      svc.logs.filter((l) => l.includes('unhandled error')),
      [],
      'nothing reached the unhandled-error path',
    );
  },
);
