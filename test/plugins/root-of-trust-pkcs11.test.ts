import { Registry } from 'prom-client';
import t from 'tap';
import { rootOfTrustContract } from '../../contracts/root-of-trust.ts';
import { createStderrLogger } from '../../kernel/logger.ts';
import { Pkcs11Module } from '../../plugins/root-of-trust/pkcs11/pkcs11-module.ts';
import { Pkcs11RootOfTrust } from '../../plugins/root-of-trust/pkcs11/pkcs11-root-of-trust.ts';
import { softHsm } from '../helpers/softhsm.ts';

const hsm = softHsm(t);
if (hsm) {
  const quiet = createStderrLogger('error', () => {});
  hsm.initToken('contract', '1234');
  const settings = {
    module: hsm.module,
    tokenLabel: 'contract',
    pin: '1234',
    pinFile: '',
    kekLabel: 'kek',
    createKek: true,
    previousKekLabels: [],
  };
  const open = (preferGcm: boolean) => async () => {
    const rot = new Pkcs11RootOfTrust(settings, new Registry(), quiet, { preferGcm });
    await rot.start();
    return rot;
  };

  t.test('pkcs11 passes the root-of-trust conformance suite on SoftHSM2 (AES key wrap with padding)', async (t) => {
    rootOfTrustContract(t, open(false), open(false));
  });

  t.test(
    'pkcs11 passes the root-of-trust conformance suite on SoftHSM2 (AES-GCM, for tokens without key wrap)',
    async (t) => {
      rootOfTrustContract(t, open(true), open(true));
    },
  );

  t.test(
    'blobs name their mechanism: a KWK wrapped with one opens on an instance that prefers the other',
    async (t) => {
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
    },
  );

  t.test('64 wraps and unwraps at once share the session pool, and each comes back as it went in', async (t) => {
    const rot = await open(false)();
    t.teardown(() => rot.stop());
    const items = Array.from({ length: 64 }, (_, i) => ({
      id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      kwk: Buffer.alloc(32, i),
    }));
    const wrapped = await Promise.all(items.map(({ id, kwk }) => rot.wrap(kwk, id)));
    const back = await Promise.all(wrapped.map((w, i) => rot.unwrap(w, items[i]!.id)));
    t.same(
      back,
      items.map((i) => i.kwk),
    );
  });

  t.test(
    'a key that can leave the token, a key that is not AES-256, or a label on two keys is refused as a KEK',
    async (t) => {
      // Made on the token the way a careless ceremony would, through the same library.
      const module = Pkcs11Module.acquire(hsm.module);
      module.ensureInitialized();
      const { lib, api } = module;
      const slot = lib.C_GetSlotList(true).find((s) => lib.C_GetTokenInfo(s).label.trim() === 'contract')!;
      const session = lib.C_OpenSession(slot, api.CKF_SERIAL_SESSION | api.CKF_RW_SESSION);
      try {
        lib.C_Login(session, api.CKU_USER, '1234');
      } catch (err) {
        if ((err as Error).message !== 'CKR_USER_ALREADY_LOGGED_IN') throw err;
      }
      const make = (label: string, template: { type: number; value: number | boolean }[]) =>
        lib.C_GenerateKey(
          session,
          {
            mechanism: template.some((a) => a.type === api.CKA_KEY_TYPE && a.value === api.CKK_GENERIC_SECRET)
              ? api.CKM_GENERIC_SECRET_KEY_GEN
              : api.CKM_AES_KEY_GEN,
          },
          [
            { type: api.CKA_CLASS, value: api.CKO_SECRET_KEY },
            { type: api.CKA_TOKEN, value: true },
            { type: api.CKA_PRIVATE, value: true },
            { type: api.CKA_LABEL, value: label },
            { type: api.CKA_WRAP, value: true },
            { type: api.CKA_UNWRAP, value: true },
            ...template,
          ],
        );
      const aes256 = [
        { type: api.CKA_KEY_TYPE, value: api.CKK_AES },
        { type: api.CKA_VALUE_LEN, value: 32 },
      ];
      make('extractable', [
        ...aes256,
        { type: api.CKA_SENSITIVE, value: false },
        { type: api.CKA_EXTRACTABLE, value: true },
      ]);
      make('aes-128', [
        { type: api.CKA_KEY_TYPE, value: api.CKK_AES },
        { type: api.CKA_VALUE_LEN, value: 16 },
        { type: api.CKA_SENSITIVE, value: true },
        { type: api.CKA_EXTRACTABLE, value: false },
      ]);
      make('twice', [...aes256, { type: api.CKA_SENSITIVE, value: true }, { type: api.CKA_EXTRACTABLE, value: false }]);
      make('twice', [...aes256, { type: api.CKA_SENSITIVE, value: true }, { type: api.CKA_EXTRACTABLE, value: false }]);
      lib.C_CloseSession(session);
      module.release();
      const refused = (kekLabel: string) =>
        new Pkcs11RootOfTrust({ ...settings, kekLabel, createKek: false }, new Registry(), quiet).start();
      await t.rejects(
        refused('extractable'),
        /crypto\.pkcs11\.kekLabel \(SVC_CRYPTO_PKCS11_KEK_LABEL\): the key labelled "extractable" on the token "contract" can leave the token \(CKA_SENSITIVE must be true and CKA_EXTRACTABLE false\)/,
      );
      await t.rejects(refused('aes-128'), /the key labelled "aes-128" on the token "contract" is not an AES-256 key/);
      await t.rejects(refused('twice'), /more than one key labelled "twice" on the token "contract"/);
    },
  );
}
