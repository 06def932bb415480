import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { K, text, structure, enumeration, type TtlvItem } from '../../plugins/doors/kmip/ttlv/index.ts';
import { Database } from '../../plugins/sql-support/sqlite-driver.ts';
import { importBody, importParameters, secret } from '../helpers/byok.ts';
import { ApiClient, b64 } from '../helpers/client.ts';
import { kmipRequest, RawKmipClient, responseItems, startKmipService } from '../helpers/kmip.ts';
import { startTestService, tempDir } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

// The attack: a user allowed only `owner:self` imports material it knows under the name payments-prod;
// Locate answered newest first, the payments Service (bound by name:payments-*) encrypted under the
// impostor, the importer decrypted offline, and the trail showed only the victim's Encrypt.
const bindings = {
  self: { operations: ['Create', 'Get', 'Activate', 'Encrypt', 'Decrypt', 'Export', 'Locate'], keys: ['owner:self'] },
  payments: {
    operations: ['Create', 'Get', 'Activate', 'Encrypt', 'Decrypt', 'Locate', 'Revoke', 'Destroy'],
    keys: ['name:payments-*'],
  },
  admins: ['Create', 'Get', 'Activate', 'Locate', 'Query', 'Revoke', 'Destroy'],
};
const svc = await startTestService({
  SVC_AUTH_KIND: 'hmac',
  SVC_AUTH_HMAC_SECRET: TEST_SECRET,
  SVC_POLICY_KIND: 'role-based',
  SVC_POLICY_ROLE_BINDINGS: JSON.stringify(bindings),
});
t.teardown(() => svc.stop());
const as = async (sub: string, groups: string[], kind = 'human') =>
  new ApiClient(svc.url, {
    Authorization: `Bearer ${await mintToken({ sub, svc_groups: groups, svc_kind: kind }, { ttlSeconds: 3600 })}`,
  });
const mallory = await as('mallory', ['self']);
const payments = await as('payments-svc', ['payments'], 'service');
const admin = await as('admin', ['admins']);

t.test(
  "owner:self never creates or imports inside another binding's name pattern, before or after the real key exists",
  async (t) => {
    const created = await mallory.post('/v1/keys', { spec: { name: 'payments-prod', algorithm: 'AES' } });
    t.equal(created.status, 403, 'create: 403');
    t.match(created.body.message, /not allowed to Create/);
    const params = await importParameters(mallory, { algorithm: 'AES', sizeBits: 256 });
    const imported = await mallory.post(
      '/v1/keys/import',
      importBody({ name: 'payments-prod', algorithm: 'AES', sizeBits: 256 }, params, secret(32)),
    );
    t.equal(imported.status, 403, 'import under the name: 403');
    const agent = await mallory.post('/v1/agents/issue', { label: 'squatter', scopes: ['Create'], ttlSeconds: 600 });
    const bot = new ApiClient(svc.url, { Authorization: `Bearer ${agent.body.jwt}` });
    t.equal(
      (await bot.post('/v1/keys', { spec: { name: 'payments-canary', algorithm: 'AES' } })).status,
      403,
      "nor its agent, bounded by its parent's grants",
    );
    t.equal(
      (await mallory.post('/v1/keys', { spec: { name: 'mallory-notes', algorithm: 'AES' } })).status,
      201,
      'a name no pattern claims is still its own to take',
    );
    t.equal(
      (await mallory.post('/v1/keys', { spec: { algorithm: 'AES' } })).status,
      201,
      'so is an unnamed key (named by its id)',
    );
    t.equal(
      (await payments.post('/v1/keys', { spec: { name: 'payments-prod', algorithm: 'AES' } })).status,
      201,
      'the binding the pattern is for creates it',
    );
    const located = await payments.get('/v1/keys?name=payments-prod');
    t.equal(located.body.keys.length, 1, 'Locate by name finds exactly one key');
    t.equal(located.body.keys[0].owner, 'payments-svc');
    const trail = (await admin.get('/v1/audit?actor=mallory&limit=100')).body.records.filter(
      (r: any) => r.operation === 'Create',
    );
    t.ok(
      trail.some((r: any) => r.resource === 'name:payments-prod' && r.outcome === 'PermissionDenied'),
      'the refused squat is audited',
    );
  },
);

t.test(
  'names are unique among keys that are not Destroyed: 409 for create and import, and a destroy frees the name',
  async (t) => {
    const first = await admin.post('/v1/keys', { spec: { name: 'ledger-signing', algorithm: 'EC' } });
    t.equal(first.status, 201);
    const again = await admin.post('/v1/keys', { spec: { name: 'ledger-signing', algorithm: 'AES' } });
    t.equal(again.status, 409, 'a second create: 409');
    t.equal(again.body.error, 'IllegalOperation');
    t.match(again.body.message, /"ledger-signing" is taken: names are unique among keys that are not Destroyed/);
    const params = await importParameters(admin, { algorithm: 'AES', sizeBits: 256 });
    const imported = await admin.post(
      '/v1/keys/import',
      importBody({ name: 'ledger-signing', algorithm: 'AES', sizeBits: 256 }, params, secret(32)),
    );
    t.equal(imported.status, 409, 'an import: 409');
    const retry = await admin.post(
      '/v1/keys/import',
      importBody({ name: 'ledger-import', algorithm: 'AES', sizeBits: 256 }, params, secret(32)),
    );
    t.equal(retry.status, 201, 'the refused import did not spend its token');
    t.equal(
      (await admin.post('/v1/keys', { spec: { name: 'Ledger-Signing', algorithm: 'AES' } })).status,
      201,
      'names are case-sensitive, as name patterns are',
    );
    const id = first.body.id;
    t.equal((await admin.post(`/v1/keys/${id}/activate`)).status, 200);
    t.equal((await admin.post(`/v1/keys/${id}/revoke`, {})).status, 200);
    t.equal(
      (await admin.post('/v1/keys', { spec: { name: 'ledger-signing', algorithm: 'AES' } })).status,
      409,
      'a Deactivated key still holds its name',
    );
    t.equal((await admin.call('DELETE', `/v1/keys/${id}`)).status, 200);
    t.equal(
      (await admin.post('/v1/keys', { spec: { name: 'ledger-signing', algorithm: 'AES' } })).status,
      201,
      'a Destroyed key does not',
    );
  },
);

t.test('of concurrent creates under one name, exactly one is made', async (t) => {
  const results = await Promise.all(
    Array.from({ length: 10 }, () => admin.post('/v1/keys', { spec: { name: 'raced-name', algorithm: 'AES' } })),
  );
  t.same(results.map((r) => r.status).sort(), [201, ...Array(9).fill(409)]);
  t.equal((await admin.get('/v1/keys?name=raced-name')).body.keys.length, 1);
});

t.test(
  'KMIP Create under a taken name is refused with the REST message; without a Name each key is its own',
  async (t) => {
    const kmip = await startKmipService({
      SVC_POLICY_KIND: 'role-based',
      SVC_POLICY_SUBJECT_BINDINGS: JSON.stringify({ billing: ['Create', 'Get', 'Locate'] }),
    });
    t.teardown(() => kmip.stop());
    const client = await RawKmipClient.connect(
      kmip.port,
      readFileSync(kmip.pki.caFile),
      kmip.identity('billing', '/CN=billing'),
    );
    t.teardown(() => client.close());
    const T = K.Tag;
    const attr = (name: string, value: TtlvItem) => structure(T.Attribute, [text(T.AttributeName, name), value]);
    const aes = (name?: string) => [
      enumeration(T.ObjectType, K.ObjectType.SymmetricKey),
      structure(T.TemplateAttribute, [
        attr('Cryptographic Algorithm', enumeration(T.AttributeValue, K.CryptographicAlgorithm.Aes)),
        attr('Cryptographic Length', { tag: T.AttributeValue, type: 'Integer', value: 256 }),
        ...(name
          ? [attr('Name', structure(T.AttributeValue, [text(T.NameValue, name), enumeration(T.NameType, 1)]))]
          : []),
      ]),
    ];
    const create = async (name?: string) =>
      responseItems(
        await client.request(kmipRequest([1, 4], [{ operation: K.Operation.Create, payload: aes(name) }])),
      )[0]!;
    t.equal((await create('kmip-named')).status, K.ResultStatus.Success);
    const taken = await create('kmip-named');
    t.equal(taken.status, K.ResultStatus.OperationFailed, 'the same Name again is refused');
    t.match(taken.message, /"kmip-named" is taken/, 'with the REST message');
    t.equal((await create()).status, K.ResultStatus.Success, 'a key without a Name');
    t.equal((await create()).status, K.ResultStatus.Success, 'and another: each is named by its id');
  },
);

t.test(
  'keys that shared a name before names were unique keep it; the start ' +
    'reports them and the name stays taken while one lives',
  async (t) => {
    const dir = tempDir();
    const env = { SVC_JOURNAL_KIND: 'rdb-embedded' };
    const before = await startTestService(env, { dir });
    const api = before.client('alice');
    const older = await api.key({ name: 'shared-name', algorithm: 'AES' });
    const newer = await api.key({ name: 'renamed-below', algorithm: 'AES' });
    const sealed = (await api.post(`/v1/keys/${newer}/encrypt`, { plaintextBase64: b64('kept') })).body
      .ciphertextBase64;
    await before.stop();
    // The storage as a release without unique names left it: no names table, two keys of one name.
    const db = new Database(path.join(dir, 'journal.db'));
    const payload = JSON.parse(
      (db.prepare('select payload from svc_key_events where key_id = ? and seq = 1').get(newer) as { payload: string })
        .payload,
    );
    payload.spec.name = 'shared-name';
    db.prepare('update svc_key_events set payload = ? where key_id = ? and seq = 1').run(
      JSON.stringify(payload),
      newer,
    );
    db.prepare('update svc_key_index set name = ? where key_id = ?').run('shared-name', newer);
    db.exec("drop table svc_key_names; delete from svc_journal_migrations where name = '015_key_names'");
    db.close();

    const after = await startTestService(env, { dir });
    t.teardown(() => after.stop());
    const report = after.logs
      .map((l) => {
        try {
          return JSON.parse(l);
        } catch {
          return {};
        }
      })
      .find((l) => l.finding === 'keys.uniqueNames');
    t.same(
      report?.names,
      [{ name: 'shared-name', keyIds: [older, newer] }],
      'the start names the shared name and both keys, oldest first',
    );
    const alice = after.client('alice');
    t.same(
      (await alice.get('/v1/keys?name=shared-name')).body.keys.map((k: any) => k.id).sort(),
      [older, newer].sort(),
      'both keep it and are found by it',
    );
    t.equal(
      (await alice.post(`/v1/keys/${newer}/decrypt`, { ciphertextBase64: sealed })).body.plaintextBase64,
      b64('kept'),
      'and keep working',
    );
    t.equal(
      (await alice.post('/v1/keys', { spec: { name: 'shared-name', algorithm: 'AES' } })).status,
      409,
      'no third key may take it',
    );
    for (const id of [older]) {
      await alice.post(`/v1/keys/${id}/revoke`, {});
      t.equal((await alice.call('DELETE', `/v1/keys/${id}`)).status, 200);
    }
    t.equal(
      (await alice.post('/v1/keys', { spec: { name: 'shared-name', algorithm: 'AES' } })).status,
      409,
      'destroying the holder hands the name to the other key',
    );
    await alice.post(`/v1/keys/${newer}/revoke`, {});
    t.equal((await alice.call('DELETE', `/v1/keys/${newer}`)).status, 200);
    t.equal(
      (await alice.post('/v1/keys', { spec: { name: 'shared-name', algorithm: 'AES' } })).status,
      201,
      'once neither lives, the name is free',
    );
  },
);
