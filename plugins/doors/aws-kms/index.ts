import {
  accessKeyCredentialsPort,
  auditPipelinePort,
  authenticatorPort,
  definePlugin,
  doorPort,
  KERNEL_API_VERSION,
  operationRunnerPort,
} from '../../../kernel/index.ts';
import { AwsKmsDoor } from './aws-door.ts';
import { awsSettings } from './config.ts';

export default definePlugin({
  id: 'aws-kms',
  apiVersion: KERNEL_API_VERSION,
  provides: doorPort,
  description:
    'AWS KMS API at /aws/kms (JSON 1.1, Signature Version 4): AWS SDKs, the AWS CLI, SOPS, Terraform and cosign ' +
    'by endpoint override, through the one pipeline',
  dependsOn: {
    runner: operationRunnerPort,
    authenticator: authenticatorPort,
    credentials: accessKeyCredentialsPort,
    audit: auditPipelinePort,
  },
  settings: awsSettings,
  configure: (settings, deployment) => ({
    accountId: settings.aws.accountId,
    maxBodyBytes: deployment.http.maxBodyBytes,
  }),
  create: ({ config, deps, clock, logger }) => new AwsKmsDoor({ ...deps, clock, logger }, config),
});
