import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { type AccessKeyCredentials, accessKeyCredentialsPort } from '../../kernel/index.ts';
import { ApiClient } from '../helpers/client.ts';
import { startTestService, type TestService, tempDir } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

// Access keys through the REST API of a real service: HMAC bearer tokens (so that Services and Agents can
// call), the SQLite journal (so that its file can be read and the service restarted over it).
const ENV = { SVC_AUTH_KIND: 'hmac', SVC_AUTH_HMAC_SECRET: TEST_SECRET, SVC_JOURNAL_KIND: 'rdb-embedded' };
const as = async (svc: TestService, claims: Record<string, unknown>) =>
  new ApiClient(svc.url, { Authorization: `Bearer ${await mintToken(claims, { ttlSeconds: 3600 })}` });
const credentials = (svc: TestService) =>
  svc.kernel.container.resolve<AccessKeyCredentials>(accessKeyCredentialsPort.id);

/** Every file under `dir`, as bytes: what anyone who copies the data folder holds. */
function filesUnder(dir: string): Array<{ file: string; bytes: Buffer }> {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => {
      const file = path.join(e.parentPath, e.name);
      return { file, bytes: readFileSync(file) };
    });
}

t.test(
  'a key for oneself and one for a Service: the secret is answered once, and is nowhere else in the clear',
  async (t) => {
    const dir = tempDir();
    let svc = await startTestService(ENV, { dir });
    t.teardown(() => svc.stop());
    const alice = await as(svc, { sub: 'alice', svc_groups: ['kms-admins', 'ops'] });

    const own = await alice.post('/v1/access-keys', {});
    t.equal(own.status, 201, JSON.stringify(own.body));
    t.match(own.body, {
      accessKeyId: /^AKSV[A-Z2-7]{16}$/,
      secretAccessKey: /^[A-Za-z0-9_-]{43}$/,
      principal: { kind: 'Human', subject: 'alice' },
      createdAt: /^\d{4}-\d\d-\d\dT/,
    });
    t.equal(Buffer.from(own.body.secretAccessKey, 'base64url').length, 32, 'the secret is 32 bytes');
    t.same(Object.keys(own.body.principal).sort(), ['kind', 'subject'], 'the answer shows no groups or credential');
    const billing = await alice.post('/v1/access-keys', { service: 'billing-app' });
    t.equal(billing.status, 201);
    t.same(billing.body.principal, { kind: 'Service', subject: 'billing-app' });
    t.not(billing.body.accessKeyId, own.body.accessKeyId);
    const keys = [own.body, billing.body];
    const secrets = keys.map((k) => k.secretAccessKey as string);

    const listed = await alice.get('/v1/access-keys');
    t.equal(listed.status, 200);
    t.same(
      listed.body.accessKeys.map((k: any) => k.accessKeyId),
      keys.map((k) => k.accessKeyId).sort(),
      'both keys, by id',
    );
    t.same(
      listed.body.accessKeys.find((k: any) => k.accessKeyId === own.body.accessKeyId),
      {
        accessKeyId: own.body.accessKeyId,
        principal: { kind: 'Human', subject: 'alice' },
        createdAt: own.body.createdAt,
        createdBy: 'alice',
      },
    );
    t.match(
      listed.body.accessKeys.find((k: any) => k.accessKeyId === billing.body.accessKeyId),
      {
        principal: { kind: 'Service', subject: 'billing-app' },
        createdBy: 'alice',
      },
    );
    t.same(
      (await alice.get('/v1/access-keys?principal=billing-app')).body.accessKeys.map((k: any) => k.accessKeyId),
      [billing.body.accessKeyId],
      "one principal's keys",
    );
    const page = await alice.get('/v1/access-keys?limit=1');
    t.equal(page.body.accessKeys.length, 1);
    t.equal(page.body.nextAfter, page.body.accessKeys[0].accessKeyId, 'a page names where the next begins');
    const rest = await alice.get(`/v1/access-keys?limit=1&after=${page.body.nextAfter}`);
    t.equal(rest.body.accessKeys.length, 1);
    t.equal(rest.body.nextAfter, undefined, 'the last page says so');

    const resolver = credentials(svc);
    t.same(
      await resolver.resolve(own.body.accessKeyId),
      { principal: { kind: 'Human', subject: 'alice', groups: ['kms-admins', 'ops'] }, secret: secrets[0] },
      "a Human's key acts as the Human with its groups at creation, and no credential",
    );
    t.same(await resolver.resolve(billing.body.accessKeyId), {
      principal: { kind: 'Service', subject: 'billing-app', groups: [] },
      secret: secrets[1],
    });
    t.equal(await resolver.resolve('AKSVAAAAAAAAAAAAAAAA'), undefined, 'an unknown id');
    t.equal(await resolver.resolve('not-an-access-key-id'), undefined, 'text of another form');

    const audit = (await alice.get('/v1/audit?limit=1000')).body.records as any[];
    for (const key of keys) {
      const created = audit.filter((r) => r.resource === `access-key:${key.accessKeyId}`);
      t.equal(created.length, 1, 'one audit record per create');
      t.match(created[0], {
        operation: 'Create',
        outcome: 'Success',
        principal: { subject: 'alice', kind: 'Human' },
        context: {
          accessKeyId: key.accessKeyId,
          'accessKey.principal': key.principal.subject,
          'accessKey.principalKind': key.principal.kind,
        },
      });
    }
    for (const secret of secrets) {
      t.notOk(JSON.stringify(listed.body).includes(secret), 'the list holds no secret');
      t.notOk(JSON.stringify(audit).includes(secret), 'no audit record holds the secret');
      t.notOk(svc.logs.join('\n').includes(secret), 'no log line holds the secret');
    }

    // A restart over the same files: the keys resolve to the same principals and secrets.
    await svc.stop();
    for (const { file, bytes } of filesUnder(dir)) {
      for (const secret of secrets) {
        t.notOk(bytes.includes(Buffer.from(secret)), `${path.basename(file)} holds no secret as text`);
        t.notOk(bytes.includes(Buffer.from(secret, 'base64url')), `${path.basename(file)} holds no secret as bytes`);
      }
    }
    t.ok(
      filesUnder(dir).some(({ file, bytes }) => file.endsWith('journal.db') && bytes.includes(own.body.accessKeyId)),
      'the key is in the journal file (the check above read the right file)',
    );
    svc = await startTestService(ENV, { dir });
    const again = await as(svc, { sub: 'alice', svc_groups: ['kms-admins'] });
    t.equal((await credentials(svc).resolve(own.body.accessKeyId))?.secret, secrets[0], 'resolvable after a restart');
    t.equal((await credentials(svc).resolve(billing.body.accessKeyId))?.secret, secrets[1]);

    // Delete: the next resolve refuses the key; a second delete finds nothing.
    const deleted = await again.call('DELETE', `/v1/access-keys/${own.body.accessKeyId}`);
    t.equal(deleted.status, 200);
    t.same(deleted.body, {
      accessKeyId: own.body.accessKeyId,
      deleted: true,
      principal: { kind: 'Human', subject: 'alice' },
    });
    t.equal(await credentials(svc).resolve(own.body.accessKeyId), undefined, 'a deleted key resolves to nothing');
    t.equal((await credentials(svc).resolve(billing.body.accessKeyId))?.secret, secrets[1], 'the other key lives');
    const twice = await again.call('DELETE', `/v1/access-keys/${own.body.accessKeyId}`);
    t.equal(twice.status, 404);
    t.equal(twice.body.error, 'NotFound');
    t.same(
      (await again.get('/v1/access-keys')).body.accessKeys.map((k: any) => k.accessKeyId),
      [billing.body.accessKeyId],
    );
    const revoked = (await again.get(`/v1/audit?key=access-key:${own.body.accessKeyId}&limit=10`)).body.records;
    t.ok(
      revoked.some(
        (r: any) =>
          r.operation === 'Revoke' && r.outcome === 'Success' && r.context.accessKeyId === own.body.accessKeyId,
      ),
      'the delete is audited',
    );
  },
);

t.test('who may create: Humans only, for themselves or a Service they name, at most 10 each', async (t) => {
  const svc = await startTestService(ENV);
  t.teardown(() => svc.stop());
  const bob = await as(svc, { sub: 'bob' });

  const service = await as(svc, { sub: 'deployer', svc_kind: 'service' });
  const byService = await service.post('/v1/access-keys', {});
  t.equal(byService.status, 403, 'a Service cannot create one');
  t.equal(byService.body.error, 'PermissionDenied');
  t.match(byService.body.message, /human principals only; Service callers are refused/);
  t.equal((await service.post('/v1/access-keys', { service: 'deployer' })).status, 403, 'not even for itself');

  const issued = await bob.post('/v1/agents/issue', {
    label: 'bot',
    scopes: ['Create', 'Query', 'Revoke'],
    ttlSeconds: 600,
  });
  t.equal(issued.status, 200, JSON.stringify(issued.body));
  const agent = new ApiClient(svc.url, { Authorization: `Bearer ${issued.body.jwt}` });
  const byAgent = await agent.post('/v1/access-keys', {});
  t.equal(byAgent.status, 403, 'an Agent cannot create one, whatever its scopes');
  t.match(byAgent.body.message, /Agent callers are refused/);
  t.equal((await agent.get('/v1/access-keys')).status, 403, 'nor list them');

  for (const [body, why] of [
    [{ service: 'svc-system' }, 'the service itself'],
    [{ service: 'SVC-SYSTEM' }, 'the service itself, in capitals'],
    [{ service: 'agent-6f1c2a8e-1d2b-4c3d-9e4f-5a6b7c8d9e0f' }, "an agent's id"],
    [{ service: 'bill\u0007ing' }, 'a control character'],
    [{ service: 'bill\u200bing' }, 'a zero-width character'],
    [{ service: '   ' }, 'blank'],
    [{ service: '' }, 'empty'],
    [{ service: 'x'.repeat(257) }, 'over 256 characters'],
    [{ service: 'a', extra: true }, 'an unknown field'],
  ] as const) {
    const refused = await bob.post('/v1/access-keys', body);
    t.equal(refused.status, 400, `refused: ${why}`);
  }
  const reserved = await bob.post('/v1/access-keys', { service: 'svc-system' });
  t.equal(reserved.body.error, 'InvalidField');
  t.match(reserved.body.message, /reserved for the service itself/);
  t.equal((await bob.post('/v1/access-keys', { service: 'x'.repeat(256) })).status, 201, '256 characters will do');

  for (let i = 1; i <= 10; i++) t.equal((await bob.post('/v1/access-keys', {})).status, 201, `bob's key ${i}`);
  const eleventh = await bob.post('/v1/access-keys', {});
  t.equal(eleventh.status, 409, 'the 11th is refused');
  t.equal(eleventh.body.error, 'IllegalOperation');
  t.match(eleventh.body.message, /Human bob already holds 10 access keys/);
  t.equal(
    (await bob.post('/v1/access-keys', { service: 'bob' })).status,
    201,
    'a Service named bob is another principal',
  );
  const mine = (await bob.get('/v1/access-keys?principal=bob')).body.accessKeys.filter(
    (k: any) => k.principal.kind === 'Human',
  );
  t.equal(mine.length, 10, 'the refused one was not stored');
  t.equal((await bob.call('DELETE', `/v1/access-keys/${mine[0].accessKeyId}`)).status, 200);
  t.equal((await bob.post('/v1/access-keys', {})).status, 201, 'a deleted key frees its place');
  const refusals = (await bob.get('/v1/audit?key=access-key:*&limit=1000')).body.records;
  t.ok(
    refusals.some((r: any) => r.operation === 'Create' && r.outcome === 'IllegalOperation'),
    'the refused 11th is audited',
  );
  t.ok(
    refusals.some((r: any) => r.outcome === 'PermissionDenied' && r.principal.kind === 'Service'),
    "the Service's refusal is audited",
  );

  for (const id of ['AKSVAAAAAAAAAAAAAAAA', 'not-an-id', 'AKSV%00']) {
    const unknown = await bob.call('DELETE', `/v1/access-keys/${id}`);
    t.equal(unknown.status, id === 'AKSV%00' ? 400 : 404, `delete of ${id}`);
  }
  t.equal((await bob.call('DELETE', '/v1/access-keys/AKSVAAAAAAAAAAAAAAAA')).body.error, 'NotFound');
});

t.test('role-based policy: Create, Query and Revoke on access-key:* are granted by plain bindings only', async (t) => {
  const svc = await startTestService({
    ...ENV,
    SVC_POLICY_KIND: 'role-based',
    SVC_POLICY_ROLE_BINDINGS: JSON.stringify({
      'kms-admins': ['Create', 'Query', 'Revoke'],
      signers: ['Get', 'Sign'],
      owners: { operations: ['Create', 'Query', 'Revoke'], keys: ['owner:self'] },
    }),
  });
  t.teardown(() => svc.stop());
  const admin = await as(svc, { sub: 'carol', svc_groups: ['kms-admins'] });
  const created = await admin.post('/v1/access-keys', {});
  t.equal(created.status, 201);
  t.match(
    await admin.post('/v1/access-keys', { service: 'reports' }),
    { status: 403, body: { message: /needs Administer/ } },
    "a key for a Service is that Service's credential: it needs Administer, which plain Create is not",
  );
  t.equal((await admin.get('/v1/access-keys')).status, 200);
  for (const group of ['signers', 'owners']) {
    const other = await as(svc, { sub: `dave-${group}`, svc_groups: [group] });
    t.equal((await other.post('/v1/access-keys', {})).status, 403, `${group} may not create`);
    t.equal((await other.get('/v1/access-keys')).status, 403, `${group} may not list`);
    t.equal(
      (await other.call('DELETE', `/v1/access-keys/${created.body.accessKeyId}`)).status,
      403,
      `${group} may not delete`,
    );
  }
  t.equal((await admin.call('DELETE', `/v1/access-keys/${created.body.accessKeyId}`)).status, 200);
});
