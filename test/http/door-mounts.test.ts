import { writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { mountProblems } from '../../kernel/http/door-mounts.ts';
import { ApiClient } from '../helpers/client.ts';
import { startTestService, tempDir } from '../helpers/service.ts';

t.test(
  "a door mounted on the service's listener: authenticated before its body, errors as REST, audited with its name",
  async (t) => {
    const dir = tempDir();
    const config = path.join(dir, 'svc.yaml');
    writeFileSync(config, `plugins:\n  - ${path.resolve('test/fixtures/mount-door.ts')}\n`);
    const svc = await startTestService({ SVC_CONFIG_FILE: config }, { dir });
    t.teardown(() => svc.stop());
    const anonymous = new ApiClient(svc.url);
    const alice = svc.client('alice');
    const keyId = (await alice.post('/v1/keys', { spec: { name: 'mounted', algorithm: 'EdDSA' } })).body.id;

    const ok = await alice.call('POST', '/mount-door/x', { id: keyId }, { 'X-Request-Id': 'mounted-1' });
    t.equal(ok.status, 200);
    t.match(ok.body, { path: '/x', result: { id: keyId } });
    t.equal(ok.headers.get('x-request-id'), 'mounted-1', 'the listener gives the mount its request id');

    const anon = await anonymous.call('POST', '/mount-door', '{"id": ', { 'Content-Type': 'application/json' });
    t.equal(anon.status, 401, 'refused before the body is read: not a JSON error');
    t.match(anon.body, { error: 'Unauthorized', message: /X-Svc-User/ });

    const challenge = await alice.call('GET', '/mount-door/challenge');
    t.equal(challenge.status, 401);
    t.same(challenge.body, { error: 'Unauthorized', message: 'a credential is needed here' });
    t.equal(
      challenge.headers.get('www-authenticate'),
      'Bearer resource_metadata="x"',
      'a header the door set before throwing is kept',
    );

    const failed = await alice.call('POST', '/mount-door', { id: '00000000-0000-4000-8000-000000000000' });
    t.equal(failed.status, 404);
    t.match(failed.body, { error: 'KeyNotFound' });

    const trail = (await svc.client('auditor').get('/v1/audit?actor=alice')).body.records;
    t.match(
      trail.find((r: any) => r.correlationId === 'mounted-1'),
      { operation: 'Get', outcome: 'Success', context: { door: 'mount-door' } },
    );
    t.match(
      trail.find((r: any) => r.operation === 'Create'),
      { context: { door: 'http' } },
      'REST records say door: http',
    );
    t.equal((await alice.get('/mount-doorway')).status, 404, "only the mount path and paths below it are the door's");
    const metrics = (await anonymous.get('/metrics')).body as string;
    t.match(
      metrics,
      /svc_http_requests_total\{method="POST",route="\/mount-door",status="200"\} 1/,
      'measured under the mount path, never the raw path',
    );
    t.notMatch(metrics, /route="\/mount-door\/x"/);
  },
);

t.test('mount paths are checked at boot', async (t) => {
  const m = (p: string) => ({ path: p, handle: async () => undefined });
  t.same(mountProblems([{ door: 'a', mount: m('/mcp') }], ['/v1/keys', '/metrics']), []);
  t.match(
    mountProblems(
      [
        { door: 'a', mount: m('/mcp/') },
        { door: 'b', mount: m('mcp') },
      ],
      [],
    ),
    [/trailing slash/, /trailing slash/],
  );
  t.match(
    mountProblems(
      [
        { door: 'a', mount: m('/mcp') },
        { door: 'b', mount: m('/mcp') },
      ],
      [],
    ),
    [/doors "a" and "b" both mount \/mcp/],
  );
  t.match(mountProblems([{ door: 'a', mount: m('/v1') }], ['/v1/keys']), [/overlaps the service's route \/v1\/keys/]);
  t.match(mountProblems([{ door: 'a', mount: m('/metrics') }], ['/metrics']), [/overlaps/]);
});
