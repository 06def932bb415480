import path from 'node:path';
import { Type } from '@sinclair/typebox';
import {
  CALLER_TEXT_RULE,
  type Deployment,
  defineSettings,
  isAlias,
  isCallerText,
  isUuid,
  type Principal,
  reservedSubjectProblem,
  type SettingsOf,
} from '../../../kernel/index.ts';

export const k8sKmsSettings = defineSettings(
  Type.Object({
    k8s: Type.Object({
      socket: Type.String({
        env: 'SVC_K8S_KMS_SOCKET',
        description:
          'Unix socket path on which the Kubernetes KMS v2 plugin serves kube-apiserver over gRPC ' +
          '(v2.KeyManagementService: Status, Encrypt, Decrypt), mode 0600, in a folder the service may write. ' +
          'Empty: the plugin is off. An existing socket there is replaced when nothing answers on it; any other ' +
          'file there stops the boot.',
        default: '',
      }),
      keyId: Type.String({
        env: 'SVC_K8S_KMS_KEY_ID',
        description:
          'The AES key kube-apiserver encrypts under: a key id or alias/NAME (required when k8s.socket is set). ' +
          'Resolved at each call, so moving the alias moves new writes to another key; ciphertexts name their ' +
          'key and keep decrypting under it.',
        default: '',
      }),
      principal: Type.String({
        env: 'SVC_K8S_KMS_PRINCIPAL',
        description:
          'Subject of the Service principal the plugin calls as: policy authorizes, and the audit trail ' +
          'names, every Status, Encrypt and Decrypt as this Service (door k8s).',
        default: 'kube-apiserver',
      }),
    }),
  }),
);

/** What the Kubernetes KMS door receives. */
export interface K8sKmsConfig {
  /** Absolute path of the socket. */
  socket: string;
  /** A key id or alias/NAME. */
  keyId: string;
  principal: Principal;
}

/** Longest path a Unix socket can be bound at on Linux (sun_path is 108 bytes, NUL included). */
export const MAX_SOCKET_PATH_BYTES = 107;
/**
 * The socket is first bound inside a fresh private folder beside it (socket-file.ts): `<folder>/.k8s-kms-XXXXXX/s`.
 * That path must fit as well.
 */
export const BIND_SUFFIX = '.k8s-kms-XXXXXX/s';

/** The settings as the door uses them; throws a sentence naming the setting when they cannot work. */
export function configureK8sKms(settings: SettingsOf<typeof k8sKmsSettings>, deployment: Deployment): K8sKmsConfig {
  const { socket, keyId, principal } = settings.k8s;
  const at = path.resolve(socket);
  for (const bound of [at, path.join(path.dirname(at), BIND_SUFFIX)])
    if (Buffer.byteLength(bound) > MAX_SOCKET_PATH_BYTES)
      throw new Error(
        `k8s.socket (env SVC_K8S_KMS_SOCKET) ${at} is too long: a Unix socket path holds at most ` +
          `${MAX_SOCKET_PATH_BYTES} bytes, and the plugin binds ${bound} first; choose a shorter path`,
      );
  const given = JSON.stringify(keyId.slice(0, 300));
  if (!isUuid(keyId) && !isAlias(keyId))
    throw new Error(
      `k8s.keyId (env SVC_K8S_KMS_KEY_ID) must be a key id or alias/NAME when k8s.socket is set, got ${given}`,
    );
  if (principal.length === 0 || [...principal].length > 256 || !isCallerText(principal))
    throw new Error(
      `k8s.principal (env SVC_K8S_KMS_PRINCIPAL) must be 1..256 characters that ${CALLER_TEXT_RULE.replace(/^must not/, 'do not')}`,
    );
  const reserved = reservedSubjectProblem(principal);
  if (reserved) throw new Error(`k8s.principal (env SVC_K8S_KMS_PRINCIPAL) cannot be used: ${reserved}`);
  if (deployment.workers > 1)
    throw new Error(
      `k8s.socket (env SVC_K8S_KMS_SOCKET) is served by one process, and server.workers (env SVC_WORKERS) is ` +
        `${deployment.workers}: run this node with server.workers 1 (the plugin's calls are a few a minute), ` +
        'or leave k8s.socket empty',
    );
  return { socket: at, keyId, principal: { kind: 'Service', subject: principal, groups: [] } };
}
