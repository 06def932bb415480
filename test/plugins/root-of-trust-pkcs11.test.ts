import { Registry } from 'prom-client';
import t from 'tap';
import { rootOfTrustContract } from '../../contracts/root-of-trust.ts';
import { createStderrLogger } from '../../kernel/logger.ts';
import { Pkcs11RootOfTrust } from '../../plugins/root-of-trust/support/pkcs11-root-of-trust.ts';
import { softHsm } from '../helpers/softhsm.ts';

const hsm = softHsm(t);
if (hsm) {
  const quiet = createStderrLogger('error', () => {});
  hsm.initToken('contract', '1234');
  const settings = { module: hsm.module, tokenLabel: 'contract', pin: '1234', pinFile: '', kekLabel: 'kek', createKek: true, previousKekLabels: [] };
  const open = (preferGcm: boolean) => async () => {
    const rot = new Pkcs11RootOfTrust(settings, new Registry(), quiet, { preferGcm });
    await rot.start();
    return rot;
  };

  t.test('pkcs11 passes the root-of-trust conformance suite on SoftHSM2 (AES key wrap with padding)', async (t) => {
    rootOfTrustContract(t, open(false), open(false));
  });

  t.test('pkcs11 passes the root-of-trust conformance suite on SoftHSM2 (AES-GCM, for tokens without key wrap)', async (t) => {
    rootOfTrustContract(t, open(true), open(true));
  });

  t.test('blobs name their mechanism: a KWK wrapped with one opens on an instance that prefers the other', async (t) => {
    const kwp = await open(false)();
    const gcm = await open(true)();
    t.teardown(async () => {
      await kwp.stop();
      await gcm.stop();
    });
    const kwk = Buffer.alloc(32, 5);
    const id = '00000000-0000-4000-8000-000000000001';
    t.same(await gcm.unwrap(await kwp.wrap(kwk, id), id), kwk);
    t.same(await kwp.unwrap(await gcm.wrap(kwk, id), id), kwk);
    t.equal((await kwp.wrap(kwk, id)).blob[0], 0x11, 'key wrap with padding');
    t.equal((await gcm.wrap(kwk, id)).blob[0], 0x12, 'AES-GCM');
  });
}
