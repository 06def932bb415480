import t from 'tap';
import { ApiClient } from '../helpers/client.ts';
import { importBody, importParameters, secret } from '../helpers/byok.ts';
import { startTestService } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

// Key-scoped bindings: import is a create of the key it would make; export needs Export on the key.
const svc = await startTestService({
  SVC_AUTH_KIND: 'hmac',
  SVC_AUTH_HMAC_SECRET: TEST_SECRET,
  SVC_POLICY_KIND: 'role-based',
  SVC_POLICY_ROLE_BINDINGS: JSON.stringify({
    own: { operations: ['Create', 'Get', 'Activate', 'Export'], keys: ['owner:self'] },
    team: { operations: ['Create', 'Get', 'Activate', 'Export'], keys: ['name:team-*'] },
    creators: ['Create', 'Activate'],
  }),
});
t.teardown(() => svc.stop());
const as = async (sub: string, groups: string[]) =>
  new ApiClient(svc.url, {
    Authorization: `Bearer ${await mintToken({ sub, svc_groups: groups }, { ttlSeconds: 3600 })}`,
  });
const AES = { algorithm: 'AES' };

t.test("owner:self: import parameters, import and export of the caller's own keys only", async (t) => {
  const bob = await as('bob', ['own']);
  const carol = await as('carol', ['own']);
  const imported = await bob.post(
    '/v1/keys/import',
    importBody({ ...AES, exportable: true }, await importParameters(bob, AES), secret(32)),
  );
  t.equal(imported.status, 201);
  t.equal(imported.body.owner, 'bob', 'an imported key belongs to its importer');
  await bob.post(`/v1/keys/${imported.body.id}/activate`);
  t.equal((await bob.post(`/v1/keys/${imported.body.id}/export`, {})).status, 200, 'its owner exports it');
  t.equal((await carol.post(`/v1/keys/${imported.body.id}/export`, {})).status, 403, 'another owner cannot');
});

t.test(
  'import parameters need Create on a key the caller would own: a binding ' +
    'limited to names is not enough; tokens are not transferable',
  async (t) => {
    const dana = await as('dana', ['team']);
    t.equal(
      (await dana.post('/v1/keys/import-parameters', AES)).status,
      403,
      'parameters name no key, so name:team-* does not grant them',
    );
    const ops = await as('ops', ['creators']);
    const params = await importParameters(ops, AES);
    t.equal(
      (await dana.post('/v1/keys/import', importBody({ ...AES, name: 'team-x' }, params, secret(32)))).status,
      400,
      "ops' token is not dana's to spend",
    );
    const nobody = await as('nobody', []);
    t.equal((await nobody.post('/v1/keys/import-parameters', AES)).status, 403, 'no Create, no parameters');
  },
);
