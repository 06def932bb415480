import t, { type Test } from 'tap';
import { ApiClient } from '../helpers/client.ts';
import { cliEnv, svc } from '../helpers/cli.ts';
import { freshDatabase, type TestDatabase } from '../helpers/databases.ts';
import { insiderSql } from '../helpers/insider-sql.ts';
import { startTestService, tempDir, type TestService } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

/** Runs one SQL statement with the database's own command-line client, as an insider with access would. */
function tamper(svcDir: string, db: TestDatabase | undefined, sql: string): void {
  insiderSql(svcDir, db, sql);
}

async function trail(
  t: Test,
  db: TestDatabase | undefined,
): Promise<{ service: TestService; api: ApiClient; token: string }> {
  const service = await startTestService({
    SVC_AUTH_KIND: 'hmac',
    SVC_AUTH_HMAC_SECRET: TEST_SECRET,
    SVC_NODE_ID: 'kms-1',
    ...(db?.env ?? {}),
  });
  t.teardown(() => service.stop());
  const token = await mintToken({ sub: 'alice' });
  const api = new ApiClient(service.url, { Authorization: `Bearer ${token}` });
  const id = await api.key({ algorithm: 'AES' });
  for (let i = 0; i < 4; i++) await api.post(`/v1/keys/${id}/encrypt`, { plaintextBase64: 'aGk=' });
  return { service, api, token };
}

for (const kind of ['sqlite', 'postgresql', 'mysql'] as const) {
  t.test(`${kind}: an untouched trail verifies; an edited row and a removed row are found, by id`, async (t) => {
    const db = kind === 'sqlite' ? undefined : await freshDatabase(t, kind);
    if (kind !== 'sqlite' && !db) return;
    const { service, api, token } = await trail(t, db);
    const ok = await api.get('/v1/audit/verify');
    t.equal(ok.status, 200);
    t.match(ok.body, { valid: true, nodes: ['kms-1'] });
    t.ok(ok.body.checked >= 6, 'create, activate, four encrypts');

    const rows = (await api.get('/v1/audit?op=Encrypt&limit=10')).body.records.reverse();
    // An insider turns a refused call into a success, with the database's own client.
    tamper(
      service.dir,
      db,
      `update svc_audit set outcome = 'Success', context = '{}' where event_id = '${rows[1].id}'`,
    );
    // The row was verified already: a verification that goes on from there does not look at it again, a full one does.
    t.equal((await api.get('/v1/audit/verify')).body.valid, true, 'only rows after the last verified one are checked');
    const edited = await api.get('/v1/audit/verify?full=true');
    t.match(edited.body, { valid: false, firstBroken: { id: rows[1].id, node: 'kms-1', reason: /edited/ } });

    const home = tempDir('svc-cli-verify-');
    const cli = await svc(['audit', 'verify', '--full'], cliEnv(home, { SVC_SERVER: service.url, SVC_TOKEN: token }));
    t.equal(cli.code, 3, 'svc audit verify exits 3 on a broken chain');
    t.match(cli.out, new RegExp(`BROKEN at ${rows[1].id} on node kms-1`));

    // Put the row back as it was hashed? Not possible without the hash's inputs: remove it instead, and
    // the row after it no longer links.
    tamper(service.dir, db, `delete from svc_audit where event_id = '${rows[1].id}'`);
    const removed = await api.get('/v1/audit/verify?full=true');
    t.match(removed.body, { valid: false, firstBroken: { id: rows[2].id, reason: /removed or inserted/ } });

    const since = await api.get(`/v1/audit/verify?since=${encodeURIComponent(rows[2].occurredAt)}`);
    t.equal(since.body.valid, true, 'a window after the damage anchors at its first row and verifies');
    const across = await api.get(`/v1/audit/verify?since=${encodeURIComponent(rows[0].occurredAt)}`);
    t.match(
      across.body,
      { valid: false, firstBroken: { id: rows[2].id, reason: /removed or inserted/ } },
      'a window that holds the damage finds it',
    );
  });
}

t.test('verify is Human only, and 501 on a sink without a chain', async (t) => {
  const plain = await startTestService({ SVC_AUDIT_KIND: 'stdout' });
  t.teardown(() => plain.stop());
  t.equal((await plain.client().get('/v1/audit/verify')).status, 501);
  const chained = await startTestService({ SVC_AUTH_KIND: 'hmac', SVC_AUTH_HMAC_SECRET: TEST_SECRET });
  t.teardown(() => chained.stop());
  const service = new ApiClient(chained.url, {
    Authorization: `Bearer ${await mintToken({ sub: 'svc-batch', svc_kind: 'service' })}`,
  });
  t.equal((await service.get('/v1/audit/verify')).status, 403);
  const home = tempDir('svc-cli-verify-');
  const ok = await svc(
    ['audit', 'verify', '--json'],
    cliEnv(home, { SVC_SERVER: chained.url, SVC_TOKEN: await mintToken({ sub: 'alice' }) }),
  );
  t.equal(ok.code, 0, ok.stderr);
  t.match(JSON.parse(ok.out), { valid: true });
});
