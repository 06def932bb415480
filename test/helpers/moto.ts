import { CreateKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import type { Test } from 'tap';
import { serverMissing } from './test-server.ts';

export const MOTO_REGION = 'us-east-1';
/** moto accepts any credentials; the SDK's default provider chain reads these. */
export const MOTO_CREDENTIALS = { AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing' };

export interface Moto {
  endpoint: string;
  /** A new symmetric KMS key (a KEK) in moto; its ARN. */
  createKek(): Promise<string>;
}

/**
 * The moto_server that scripts/test-services.sh started, the stand-in for a cloud KMS. When it is
 * missing the calling test is skipped, or failed under SVC_TEST_REQUIRE_SERVICES=1 (CI).
 */
export function moto(t: Test): Moto | undefined {
  const endpoint = process.env.SVC_TEST_MOTO_URL;
  if (!endpoint) {
    const why = 'moto_server not available (SVC_TEST_MOTO_URL unset; run through npm test, which starts it)';
    return serverMissing(t, why);
  }
  Object.assign(process.env, MOTO_CREDENTIALS);
  return {
    endpoint,
    createKek: async () => {
      const kms = new KMSClient({
        region: MOTO_REGION,
        endpoint,
        credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
      });
      const out = await kms.send(
        new CreateKeyCommand({
          KeySpec: 'SYMMETRIC_DEFAULT',
          KeyUsage: 'ENCRYPT_DECRYPT',
          Description: 'svc-kms test KEK',
        }),
      );
      kms.destroy();
      return out.KeyMetadata!.Arn!;
    },
  };
}
