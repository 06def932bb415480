import { Type } from '@sinclair/typebox';
import { defineSettings } from '../../../kernel/index.ts';

export const awsSettings = defineSettings(
  Type.Object({
    aws: Type.Object({
      enabled: Type.Boolean({
        description:
          'Serve the AWS KMS API (JSON 1.1, X-Amz-Target: TrentService.*) at /aws/kms on the HTTP listener, ' +
          'signed with Signature Version 4 by access keys (POST /v1/access-keys): AWS SDKs, the AWS CLI, SOPS, ' +
          'Terraform and cosign use it by endpoint override.',
        default: true,
      }),
      accountId: Type.String({
        pattern: '^[0-9]{12}$',
        description: 'The 12-digit account id in the ARNs the AWS door answers (arn:aws:kms:REGION:ACCOUNT:key/ID).',
        default: '000000000000',
      }),
    }),
  }),
);
