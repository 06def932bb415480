import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { wrapKeyMaterial } from '../../clients/sdk/index.ts';
import type { ApiClient } from './client.ts';

/** Private key material as import takes it: PKCS#8 DER, made by node:crypto (as an outside system would). */
export function pkcs8(type: 'rsa' | 'ec' | 'ed25519' | 'ed448', options: Record<string, unknown> = {}): Buffer {
  const pair = generateKeyPairSync(type as 'rsa', options as never) as unknown as {
    privateKey: { export(o: object): Buffer };
  };
  return pair.privateKey.export({ type: 'pkcs8', format: 'der' });
}

export const secret = (bytes: number) => randomBytes(bytes);

/** Import parameters for the spec's type, as the caller gets them. */
export async function importParameters(api: ApiClient, spec: Record<string, unknown>) {
  const { algorithm, sizeBits, curve, parameterSet } = spec;
  const r = await api.post('/v1/keys/import-parameters', {
    algorithm,
    ...(sizeBits === undefined ? {} : { sizeBits }),
    ...(curve === undefined ? {} : { curve }),
    ...(parameterSet === undefined ? {} : { parameterSet }),
  });
  if (r.status !== 200) throw new Error(`import-parameters: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as { importToken: string; wrappingPublicKeyPem: string; wrappingAlgorithm: string; expiresAt: string };
}

/** The body of an import of `material` under `params` (wrapped with the SDK's helper). */
export const importBody = (
  spec: Record<string, unknown>,
  params: { importToken: string; wrappingPublicKeyPem: string },
  material: Buffer,
) => ({
  spec: { name: `imported-${randomUUID()}`, ...spec },
  importToken: params.importToken,
  wrappedMaterialBase64: Buffer.from(wrapKeyMaterial(params.wrappingPublicKeyPem, material)).toString('base64'),
});

/** Parameters, wrap, import: the answer of POST /v1/keys/import. */
export async function importKey(api: ApiClient, spec: Record<string, unknown>, material: Buffer) {
  return api.post('/v1/keys/import', importBody(spec, await importParameters(api, spec), material));
}
