import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import type { KeyView } from '../key-info.ts';
import { typeOf } from '../key-types.ts';
import { invalid } from '../vault-errors.ts';
import type { RouteRequest, VaultAnswer, VaultRoute } from '../vault-route.ts';
import { readKey } from './keys.ts';

// Which export type fits which of the service's key algorithms.
const EXPORT_TYPES: Record<string, string[]> = {
  'encryption-key': ['AES'],
  'signing-key': ['RSA', 'EC', 'EdDSA'],
  'hmac-key': ['HMAC'],
  'public-key': ['RSA', 'EC', 'EdDSA'],
};

/** The versions asked for: one (`latest` or a number) or every version the key holds. */
function versionsOf(key: KeyView, asked: string | undefined): number[] {
  const floor = key.minVersion ?? 1;
  if (asked === undefined) return Array.from({ length: key.currentVersion - floor + 1 }, (_, i) => floor + i);
  const version = asked === 'latest' ? key.currentVersion : /^\d{1,9}$/.test(asked) ? Number(asked) : Number.NaN;
  if (!(version >= floor && version <= key.currentVersion))
    throw invalid(`version must be latest or one the key holds (${floor}..${key.currentVersion})`);
  return [version];
}

/** A private key in the form transit exports it: SEC1 PEM (EC), PKCS#1 PEM (RSA), seed || public key (Ed25519). */
function privateText(key: KeyObject): string {
  if (key.asymmetricKeyType === 'ec') return String(key.export({ format: 'pem', type: 'sec1' }));
  if (key.asymmetricKeyType === 'rsa') return String(key.export({ format: 'pem', type: 'pkcs1' }));
  const jwk = key.export({ format: 'jwk' });
  return Buffer.concat([Buffer.from(jwk.d!, 'base64url'), Buffer.from(jwk.x!, 'base64url')]).toString('base64');
}

/** A public key as transit shows it: PEM, or base64 of the raw key for Ed25519. */
function publicText(pem: string): string {
  const key = createPublicKey(pem);
  if (key.asymmetricKeyType === 'ed25519' || key.asymmetricKeyType === 'ed448')
    return Buffer.from(key.export({ format: 'jwk' }).x!, 'base64url').toString('base64');
  return pem;
}

/**
 * Export: the material of an exportable key (ExportKey, Humans and Services only, one call per version)
 * or, for public-key, any asymmetric key's public halves (GetPublicKey).
 */
async function exportKey({ call, params }: RouteRequest): Promise<VaultAnswer> {
  const key = await readKey(call, params.name);
  const publicOnly = params.type === 'public-key';
  const operation = publicOnly ? 'GetPublicKey' : 'ExportKey';
  let versions: number[];
  try {
    const fits = Object.hasOwn(EXPORT_TYPES, params.type!) ? EXPORT_TYPES[params.type!] : undefined;
    if (!fits) throw invalid(`the export type is one of ${Object.keys(EXPORT_TYPES).join(', ')}`);
    if (!fits.includes(key.spec.algorithm)) throw invalid(`a ${typeOf(key.spec)} key has no ${params.type} to export`);
    versions = versionsOf(key, params.version);
  } catch (err) {
    return call.refuse(operation, err);
  }
  const keys: Record<string, string> = {};
  for (const version of versions) {
    if (publicOnly) {
      const { publicKeyPem } = await call.run<{ publicKeyPem: string }>('GetPublicKey', () => ({
        id: key.id,
        version,
      }));
      keys[String(version)] = publicText(publicKeyPem);
      continue;
    }
    const exported = await call.run<{ format: string; materialBase64: string }>('ExportKey', () => ({
      id: key.id,
      version,
    }));
    keys[String(version)] =
      exported.format === 'raw'
        ? exported.materialBase64
        : privateText(
            createPrivateKey({ key: Buffer.from(exported.materialBase64, 'base64'), format: 'der', type: 'pkcs8' }),
          );
  }
  return { data: { name: params.name, type: typeOf(key.spec), keys } };
}

export const exportRoutes: VaultRoute[] = [
  { method: 'GET', path: 'export/:type/:name/:version?', primary: 'ExportKey', keyPath: true, run: exportKey },
];
