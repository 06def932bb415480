import t from 'tap';
import { startTestService } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

/** vault.enabled and vault.mount: off means no transit paths at all; a mount may not overlap the REST API. */

const HMAC = { SVC_AUTH_KIND: 'hmac', SVC_AUTH_HMAC_SECRET: TEST_SECRET, SVC_RISK_ENABLED: 'false' };

t.test('vault.mount moves the door; vault.enabled false removes it', async (t) => {
  const token = await mintToken({ sub: 'alice', svc_kind: 'human' }, { ttlSeconds: 600 });
  const moved = await startTestService({ ...HMAC, SVC_VAULT_MOUNT: 'kms-transit' });
  t.teardown(() => moved.stop());
  const write = (url: string) =>
    fetch(url, { method: 'POST', headers: { 'X-Vault-Token': token, 'Content-Type': 'application/json' }, body: '{}' });
  t.equal((await write(`${moved.url}/v1/kms-transit/keys/app`)).status, 200, 'the mount named by vault.mount');
  const old = await write(`${moved.url}/v1/transit/keys/app`);
  t.equal(old.status, 404, 'the default mount is not served then');
  t.match(await old.json(), { error: 'NotFound' }, 'answered by the REST API, in its shape');

  const off = await startTestService({ ...HMAC, SVC_VAULT_ENABLED: 'false' });
  t.teardown(() => off.stop());
  const gone = await write(`${off.url}/v1/transit/keys/app`);
  t.equal(gone.status, 404);
  t.match(await gone.json(), { error: 'NotFound' });
});

t.test('a mount over a REST path stops the boot, naming both', async (t) => {
  await t.rejects(startTestService({ ...HMAC, SVC_VAULT_MOUNT: 'keys' }), /door "vault" mounts \/v1\/keys/);
});
