import { readFileSync } from 'node:fs';
import t from 'tap';
import { child, K, text } from '../../plugins/doors/kmip/ttlv/index.ts';
import { ApiClient, b64 } from '../helpers/client.ts';
import { kmipRequest, RawKmipClient, responseItems, startKmipService } from '../helpers/kmip.ts';
import { startTestService } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

// Export hands out a key's raw material: whoever holds it decrypts and signs offline, beyond every
// later check. So it is its own operation, granted only by a binding that names it.
const bindings = {
  payments: ['Create', 'Get', 'Activate', 'Encrypt', 'Decrypt', 'Locate', 'Query'],
  readers: ['Get', 'Verify'],
  auditors: ['Get', 'Query', 'Locate'],
  keyholders: { operations: ['Get', 'Export'], keys: ['name:payments-*'] },
  everything: [
    'Create',
    'Get',
    'Locate',
    'Activate',
    'Revoke',
    'Destroy',
    'Sign',
    'Verify',
    'Encrypt',
    'Decrypt',
    'Wrap',
    'Unwrap',
    'Rotate',
    'Compromise',
    'Query',
    'GetAttributes',
    'AddAttribute',
  ],
};
const svc = await startTestService({
  SVC_AUTH_KIND: 'hmac',
  SVC_AUTH_HMAC_SECRET: TEST_SECRET,
  SVC_POLICY_KIND: 'role-based',
  SVC_POLICY_ROLE_BINDINGS: JSON.stringify(bindings),
});
t.teardown(() => svc.stop());
const as = async (sub: string, groups: string[], kind = 'human') =>
  new ApiClient(svc.url, { Authorization: `Bearer ${await mintToken({ sub, svc_groups: groups, svc_kind: kind })}` });
const payments = await as('payments-team', ['payments']);
const key = await payments.key({ name: 'payments-prod', algorithm: 'AES', exportable: true });
const sealed = (await payments.post(`/v1/keys/${key}/encrypt`, { plaintextBase64: b64('card 4111') })).body
  .ciphertextBase64;

t.test(
  'a read-only user and an auditor are refused the export of another ' +
    "team's exportable key, and it is audited as Export",
  async (t) => {
    for (const [who, groups] of [
      ['reader', ['readers']],
      ['auditor', ['auditors']],
      ['all-but-export', ['everything']],
    ] as const) {
      const caller = await as(who, [...groups]);
      t.equal((await caller.get(`/v1/keys/${key}`)).status, 200, `${who} may read the key`);
      const res = await caller.post(`/v1/keys/${key}/export`, {});
      t.equal(res.status, 403, `${who}: 403`);
      t.equal(res.body.error, 'PermissionDenied');
      t.notOk('materialBase64' in res.body, `${who}: no material`);
    }
    const rows = (await payments.get(`/v1/audit?key=${key}&op=Export&limit=100`)).body.records;
    t.same(rows.map((r: any) => [r.principal.subject, r.operation, r.outcome]).sort(), [
      ['all-but-export', 'Export', 'PermissionDenied'],
      ['auditor', 'Export', 'PermissionDenied'],
      ['reader', 'Export', 'PermissionDenied'],
    ]);
  },
);

t.test('a binding that names Export exports, within its key pattern', async (t) => {
  const holder = await as('key-holder', ['keyholders'], 'service');
  const exported = await holder.post(`/v1/keys/${key}/export`, {});
  t.equal(exported.status, 200);
  t.equal(exported.body.format, 'raw');
  t.equal(Buffer.from(exported.body.materialBase64, 'base64').length, 32);
  const other = await payments.key({ name: 'ledger-prod', algorithm: 'AES', exportable: true });
  t.equal((await holder.post(`/v1/keys/${other}/export`, {})).status, 403, 'outside name:payments-* it is refused');
  t.ok(sealed, 'a ciphertext of the key exists; its export is what the binding granted');
});

t.test('an agent never exports, even with Export in its scopes and a parent who may', async (t) => {
  const parent = await as('export-parent', ['keyholders', 'payments']);
  const issued = await parent.post('/v1/agents/issue', {
    label: 'exporter',
    scopes: ['Get', 'Export'],
    ttlSeconds: 600,
  });
  t.equal(issued.status, 200);
  const agent = new ApiClient(svc.url, { Authorization: `Bearer ${issued.body.jwt}` });
  const res = await agent.post(`/v1/keys/${key}/export`, {});
  t.equal(res.status, 403);
  t.match(res.body.message, /refused to agents whatever their scopes/);
});

t.test('over KMIP, Get of secret material needs Export too', async (t) => {
  const kmip = await startKmipService({
    SVC_POLICY_KIND: 'role-based',
    SVC_POLICY_SUBJECT_BINDINGS: JSON.stringify({
      owner: ['Create', 'Get', 'Activate', 'Export'],
      reader: ['Get', 'Verify'],
      auditor: ['Get', 'Query', 'Locate'],
      auditor2: ['Query'],
    }),
  });
  t.teardown(() => kmip.stop());
  const ca = readFileSync(kmip.pki.caFile);
  const connect = async (cn: string) => RawKmipClient.connect(kmip.port, ca, kmip.identity(cn, `/CN=${cn}`));
  const owner = await kmip.svc.client('owner');
  const id = (await owner.post('/v1/keys', { spec: { name: 'kmip-exportable', algorithm: 'AES', exportable: true } }))
    .body.id;
  t.equal((await owner.post(`/v1/keys/${id}/activate`)).status, 200);
  for (const cn of ['reader', 'auditor']) {
    const client = await connect(cn);
    t.teardown(() => client.close());
    const [answer] = responseItems(
      await client.request(
        kmipRequest([1, 4], [{ operation: K.Operation.Get, payload: [text(K.Tag.UniqueIdentifier, id)] }]),
      ),
    );
    t.equal(answer!.status, K.ResultStatus.OperationFailed, `${cn}: refused`);
    t.equal(answer!.reason, K.ResultReason.PermissionDenied, `${cn}: Permission Denied`);
    t.match(answer!.message, /not allowed to Export/, `${cn}: the REST message`);
  }
  const client = await connect('owner');
  t.teardown(() => client.close());
  const [got] = responseItems(
    await client.request(
      kmipRequest([1, 4], [{ operation: K.Operation.Get, payload: [text(K.Tag.UniqueIdentifier, id)] }]),
    ),
  );
  t.equal(got!.status, K.ResultStatus.Success, 'the owner, bound to Export, gets the material');
  t.ok(child(got!.payload, K.Tag.SymmetricKey), 'a Symmetric Key object');
});
