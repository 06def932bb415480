import { definePlugin, doorPort, KERNEL_API_VERSION, operationRunnerPort } from '../../../kernel/index.ts';
import { configureK8sKms, k8sKmsSettings } from './config.ts';
import { K8sKmsDoor } from './k8s-kms-door.ts';

export default definePlugin({
  id: 'kubernetes-kms',
  apiVersion: KERNEL_API_VERSION,
  provides: doorPort,
  description:
    'Kubernetes KMS v2 plugin (gRPC on a Unix socket) for kube-apiserver encryption at rest: Status, Encrypt and ' +
    'Decrypt under one key as one Service principal, through the one pipeline',
  dependsOn: { runner: operationRunnerPort },
  settings: k8sKmsSettings,
  configure: configureK8sKms,
  create: ({ config, deps, logger }) => new K8sKmsDoor(config, deps.runner, logger),
});
