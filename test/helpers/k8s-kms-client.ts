import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

/** The KMS v2 service definition the plugin serves, as kube-apiserver's client compiles it. */
export const K8S_KMS_PROTO = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../plugins/doors/kubernetes-kms/proto/api.proto',
);

export interface StatusResponse {
  version: string;
  healthz: string;
  key_id: string;
}
export interface EncryptResponse {
  ciphertext: Buffer;
  key_id: string;
  annotations: Record<string, Buffer>;
}

/** A refused call: its gRPC status code and message. */
export interface GrpcRefusal {
  code: number;
  details: string;
}

/** A KMS v2 client as kube-apiserver is one: gRPC on the Unix socket, a deadline on every call. */
export function k8sKmsClient(socket: string, deadlineMs = 5_000, proto = K8S_KMS_PROTO) {
  const definition = protoLoader.loadSync(proto, { keepCase: true, longs: String, enums: String, defaults: true });
  const v2 = grpc.loadPackageDefinition(definition).v2 as Record<string, grpc.ServiceClientConstructor>;
  const client = new v2.KeyManagementService!(`unix:${socket}`, grpc.credentials.createInsecure());
  const call = <T>(method: string, request: object): Promise<T> =>
    new Promise((resolve, reject) =>
      (client[method] as (...args: unknown[]) => void)(
        request,
        { deadline: Date.now() + deadlineMs },
        (err: grpc.ServiceError | null, answer: T) => (err ? reject(err) : resolve(answer)),
      ),
    );
  return {
    status: () => call<StatusResponse>('Status', {}),
    encrypt: (plaintext: Buffer, uid = '') => call<EncryptResponse>('Encrypt', { plaintext, uid }),
    decrypt: (
      ciphertext: Buffer,
      extra: { uid?: string; key_id?: string; annotations?: Record<string, Buffer> } = {},
    ) => call<{ plaintext: Buffer }>('Decrypt', { ciphertext, ...extra }),
    close: () => client.close(),
  };
}

/** The refusal a call ends in (a call that succeeds fails the test with its answer). */
export async function refusalOf(call: Promise<unknown>): Promise<GrpcRefusal> {
  try {
    const answer = await call;
    throw new Error(`the call succeeded: ${JSON.stringify(answer)}`);
  } catch (err) {
    const { code, details } = err as grpc.ServiceError;
    if (typeof code !== 'number') throw err;
    return { code, details };
  }
}

export const { status: GrpcStatus } = grpc;
