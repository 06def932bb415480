import { execFileSync } from 'node:child_process';
import path from 'node:path';
import t from 'tap';
import { b64 } from '../helpers/client.ts';
import { MOTO_CREDENTIALS, MOTO_REGION, moto } from '../helpers/moto.ts';
import { startTestService, tempDir } from '../helpers/service.ts';
import { softHsm } from '../helpers/softhsm.ts';
import { serverEntry } from '../helpers/server-entry.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const hsm = softHsm(t);
const kms = moto(t);

if (hsm && kms) {
  t.test('rewrap moves a deployment from cloud-kms to pkcs11, and back', async (t) => {
    hsm.initToken('from-cloud', '1357');
    const arn = await kms.createKek();
    const dir = tempDir();
    const base = { SVC_JOURNAL_KIND: 'rdb-embedded', ...MOTO_CREDENTIALS };
    const cloud = {
      SVC_CRYPTO_KIND: 'cloud-kms',
      SVC_CRYPTO_CLOUD_KMS_REGION: MOTO_REGION,
      SVC_CRYPTO_CLOUD_KMS_ENDPOINT: kms.endpoint,
      SVC_CRYPTO_CLOUD_KMS_KEK_ARN: arn,
    };
    const token = {
      SVC_CRYPTO_PKCS11_MODULE: hsm.module,
      SVC_CRYPTO_PKCS11_TOKEN_LABEL: 'from-cloud',
      SVC_CRYPTO_PKCS11_PIN: '1357',
    };
    const pkcs11 = { SVC_CRYPTO_KIND: 'pkcs11', ...token, SVC_CRYPTO_PKCS11_KEK_LABEL: 'hsm-kek' };
    const rewrap = (env: Record<string, string>) =>
      execFileSync(process.execPath, [...serverEntry(), 'rewrap'], {
        cwd: ROOT,
        env: { PATH: process.env.PATH!, ...hsm.env, ...first.env, ...env },
        encoding: 'utf8',
      });

    const first = await startTestService({ ...base, ...cloud }, { dir });
    const id = await first.client('ops').key({ algorithm: 'AES' });
    const sealed = (await first.client('ops').post(`/v1/keys/${id}/encrypt`, { plaintextBase64: b64('travels') })).body
      .ciphertextBase64;
    await first.stop();

    t.match(
      rewrap({
        ...pkcs11,
        SVC_CRYPTO_PKCS11_CREATE_KEK: 'true',
        SVC_CRYPTO_CLOUD_KMS_KEK_ARN: '',
        SVC_CRYPTO_CLOUD_KMS_PREVIOUS_KEK_ARNS: arn,
        SVC_CRYPTO_CLOUD_KMS_REGION: MOTO_REGION,
        SVC_CRYPTO_CLOUD_KMS_ENDPOINT: kms.endpoint,
      }),
      /^rewrapped 1 key-wrapping key\(s\) under pkcs11:from-cloud\/hsm-kek$/m,
      'cloud-kms -> pkcs11',
    );
    const onHsm = await startTestService({ ...base, ...pkcs11 }, { dir });
    t.same(
      (await onHsm.client('ops').post(`/v1/keys/${id}/decrypt`, { ciphertextBase64: sealed })).body.plaintextBase64,
      b64('travels'),
      'the token alone opens it',
    );
    await onHsm.stop();

    t.match(
      rewrap({ ...cloud, ...token, SVC_CRYPTO_PKCS11_PREVIOUS_KEK_LABELS: 'hsm-kek' }),
      /^rewrapped 1 key-wrapping key\(s\) under arn:aws:kms:/m,
      'pkcs11 -> cloud-kms',
    );
    const back = await startTestService({ ...base, ...cloud }, { dir });
    t.teardown(() => back.stop());
    t.same(
      (await back.client('ops').post(`/v1/keys/${id}/decrypt`, { ciphertextBase64: sealed })).body.plaintextBase64,
      b64('travels'),
      'cloud-kms alone opens it again',
    );
  });
}
