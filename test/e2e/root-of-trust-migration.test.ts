import { execFileSync } from 'node:child_process';
import path from 'node:path';
import t from 'tap';
import { b64 } from '../helpers/client.ts';
import { MOTO_CREDENTIALS, MOTO_REGION, moto } from '../helpers/moto.ts';
import { startTestService, tempDir } from '../helpers/service.ts';
import { serverEntry } from '../helpers/server-entry.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const kms = moto(t);

if (kms) {
  t.test('rewrap moves a deployment from the local root of trust to cloud-kms, and back', async (t) => {
    const dir = tempDir();
    const local1 = Buffer.alloc(32, 0x31).toString('base64');
    const local2 = Buffer.alloc(32, 0x32).toString('base64');
    const arn = await kms.createKek();
    const base = { SVC_JOURNAL_KIND: 'rdb-embedded', ...MOTO_CREDENTIALS };
    const cloud = {
      SVC_CRYPTO_KIND: 'cloud-kms',
      SVC_CRYPTO_CLOUD_KMS_REGION: MOTO_REGION,
      SVC_CRYPTO_CLOUD_KMS_ENDPOINT: kms.endpoint,
      SVC_CRYPTO_CLOUD_KMS_KEK_ARN: arn,
    };
    const rewrap = (env: Record<string, string>) =>
      execFileSync(process.execPath, [...serverEntry(), 'rewrap'], {
        cwd: ROOT,
        env: { PATH: process.env.PATH!, ...first.env, ...env },
        encoding: 'utf8',
      });

    const first = await startTestService({ ...base, SVC_CRYPTO_LOCAL_KEK: local1 }, { dir });
    const id = await first.client('ops').key({ algorithm: 'AES' });
    const sealed = (await first.client('ops').post(`/v1/keys/${id}/encrypt`, { plaintextBase64: b64('travels') })).body
      .ciphertextBase64;
    await first.stop();

    t.match(
      rewrap({ ...cloud, SVC_CRYPTO_LOCAL_KEK: '', SVC_CRYPTO_LOCAL_PREVIOUS_KEKS: local1 }),
      /^rewrapped 1 key-wrapping key\(s\) under arn:aws:kms:/m,
      'local -> cloud-kms',
    );
    const onCloud = await startTestService({ ...base, ...cloud, SVC_CRYPTO_LOCAL_KEK: '' }, { dir });
    t.same(
      (await onCloud.client('ops').post(`/v1/keys/${id}/decrypt`, { ciphertextBase64: sealed })).body.plaintextBase64,
      b64('travels'),
      'cloud-kms alone opens it',
    );
    await onCloud.stop();

    t.match(
      rewrap({
        SVC_CRYPTO_KIND: 'in-memory',
        SVC_CRYPTO_LOCAL_KEK: local2,
        SVC_CRYPTO_CLOUD_KMS_PREVIOUS_KEK_ARNS: arn,
        SVC_CRYPTO_CLOUD_KMS_REGION: MOTO_REGION,
        SVC_CRYPTO_CLOUD_KMS_ENDPOINT: kms.endpoint,
      }),
      /^rewrapped 1 key-wrapping key\(s\) under local:[0-9a-f]{16}$/m,
      'cloud-kms -> local',
    );
    const back = await startTestService({ ...base, SVC_CRYPTO_LOCAL_KEK: local2 }, { dir });
    t.teardown(() => back.stop());
    t.same(
      (await back.client('ops').post(`/v1/keys/${id}/decrypt`, { ciphertextBase64: sealed })).body.plaintextBase64,
      b64('travels'),
      'the new local KEK alone opens it',
    );
  });
}
