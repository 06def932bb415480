import type { KeyView } from '../key-info.ts';
import { derToJose, hashBits, joseToDer } from '../signature-forms.ts';
import { parseVersioned, versioned } from '../transit-text.ts';
import { invalid } from '../vault-errors.ts';
import { flag, keyVersion, refuseOptions, requiredText, text, type VaultInput, whole } from '../vault-input.ts';
import type { RouteRequest, VaultAnswer, VaultRoute } from '../vault-route.ts';
import { singleOrBatch } from './encryption.ts';
import { readKey } from './keys.ts';

interface Signed {
  signatureBase64: string;
  keyVersion: number;
}

/** How one request signs or verifies: the service's algorithm, and the forms of input and signature. */
interface Signing {
  algorithm: string;
  prehashed: boolean;
  jws: boolean;
  curve?: string;
}

// PSS salt: the service's is the digest's length, Vault's "hash"; "auto" verifies any and signs as it likes.
function checkSalt(body: VaultInput, digestBytes: number): void {
  const salt = text(body, 'salt_length') ?? whole(body, 'salt_length');
  if (salt === undefined || salt === 'auto' || salt === 'hash' || salt === digestBytes || salt === String(digestBytes))
    return;
  throw invalid(`salt_length: the service's PSS salt is the digest's length (hash, ${digestBytes}) here`);
}

/** The signing of a request to an RSA, EC or Ed25519 key: Vault's options as the service's algorithm. */
function signingFor(key: KeyView, hashParam: string | undefined, body: VaultInput): Signing {
  refuseOptions(body, { context: 'keys are not derived per context here' });
  if (keyVersion(body) !== undefined) throw invalid('key_version: the service signs with the latest version only');
  const bits = hashBits(hashParam ?? text(body, 'hash_algorithm'));
  const prehashed = flag(body, 'prehashed') === true;
  const marshaling = text(body, 'marshaling_algorithm') ?? 'asn1';
  if (marshaling !== 'asn1' && marshaling !== 'jws') throw invalid('marshaling_algorithm must be asn1 or jws');
  const jws = marshaling === 'jws';
  switch (key.spec.algorithm) {
    case 'RSA': {
      const padding = text(body, 'signature_algorithm') ?? 'pss';
      if (padding !== 'pss' && padding !== 'pkcs1v15') throw invalid('signature_algorithm must be pss or pkcs1v15');
      if (padding === 'pss') checkSalt(body, bits / 8);
      return { algorithm: `${padding === 'pss' ? 'RsaPss' : 'RsaPkcs1'}Sha${bits}`, prehashed, jws };
    }
    case 'EC':
      return { algorithm: `EcdsaSha${bits}`, prehashed, jws, curve: key.spec.curve };
    case 'EdDSA':
      if (prehashed) throw invalid('an ed25519 key signs the message itself: prehashed is not offered');
      return { algorithm: key.spec.curve ?? 'Ed25519', prehashed, jws };
    default:
      throw invalid(`a ${key.spec.algorithm} key does not sign over transit (hmac keys answer hmac/NAME)`);
  }
}

const message = (item: VaultInput, prehashed: boolean) =>
  prehashed ? { digestBase64: requiredText(item, 'input') } : { messageBase64: text(item, 'input') ?? '' };

/** The signature as Vault writes it: base64 (asn1) or base64url with ECDSA's r || s (jws). */
function signatureText(signing: Signing, signatureBase64: string): string {
  if (!signing.jws) return signatureBase64;
  const raw = Buffer.from(signatureBase64, 'base64');
  return (signing.curve ? derToJose(raw, signing.curve) : raw).toString('base64url');
}

/** A transit signature (`vault:vN:...`) as the service's signature and version. */
function parsedSignature(signing: Signing, value: string) {
  const { version, base64 } = parseVersioned(value, 'signature');
  if (!signing.jws) return { signatureBase64: base64, keyVersion: version };
  const raw = Buffer.from(base64, 'base64url');
  return {
    signatureBase64: (signing.curve ? joseToDer(raw, signing.curve) : raw).toString('base64'),
    keyVersion: version,
  };
}

/**
 * The key's type picks the service's algorithm (transit names a hash and a padding, the service a
 * whole algorithm), so a sign or verify reads the key once per request; options the door cannot
 * translate are refused as `operationId`'s input.
 */
async function signingOf(request: RouteRequest, operationId: string): Promise<Signing> {
  const key = await readKey(request.call, request.params.name);
  try {
    return signingFor(key, request.params.hash, request.body);
  } catch (err) {
    return request.call.refuse(operationId, err);
  }
}

async function sign(request: RouteRequest): Promise<VaultAnswer> {
  const signing = await signingOf(request, 'Sign');
  return singleOrBatch<Signed>(
    request,
    'Sign',
    (item) => ({ ...message(item, signing.prehashed), algorithm: signing.algorithm }),
    (r) => ({
      signature: versioned(r.keyVersion, signatureText(signing, r.signatureBase64)),
      key_version: r.keyVersion,
    }),
  );
}

/**
 * The HMAC algorithm of a request: the path's, else `algorithm` (Vault's name here), else `hash_algorithm`;
 * a hash not offered is refused as the route's operation (Sign for hmac/NAME, Verify for verify/NAME).
 */
async function hmacAlgorithm(request: RouteRequest, operationId: 'Sign' | 'Verify'): Promise<string> {
  const { body, params } = request;
  try {
    return `HmacSha${hashBits(params.hash ?? text(body, 'algorithm') ?? text(body, 'hash_algorithm'))}`;
  } catch (err) {
    return request.call.refuse(operationId, err);
  }
}

async function hmac(request: RouteRequest): Promise<VaultAnswer> {
  const algorithm = await hmacAlgorithm(request, 'Sign');
  return singleOrBatch<Signed>(
    request,
    'Sign',
    (item) => {
      if (keyVersion(item) !== undefined) throw invalid('key_version: the service signs with the latest version only');
      return { messageBase64: text(item, 'input') ?? '', algorithm };
    },
    (r) => ({ hmac: versioned(r.keyVersion, r.signatureBase64), key_version: r.keyVersion }),
  );
}

const valid = (r: { valid: boolean }) => ({ valid: r.valid });

/** Verify answers `valid`; an `hmac` in the request (or its items) verifies an HMAC instead of a signature. */
async function verify(request: RouteRequest): Promise<VaultAnswer> {
  const { body } = request;
  const items = Array.isArray(body.batch_input) ? (body.batch_input as VaultInput[]) : [body];
  if (items.some((item) => item !== null && typeof item === 'object' && item.hmac !== undefined)) {
    const algorithm = await hmacAlgorithm(request, 'Verify');
    return singleOrBatch(
      request,
      'Verify',
      (item) => {
        const { version, base64 } = parseVersioned(requiredText(item, 'hmac'), 'hmac');
        return { messageBase64: text(item, 'input') ?? '', signatureBase64: base64, keyVersion: version, algorithm };
      },
      valid,
    );
  }
  const signing = await signingOf(request, 'Verify');
  return singleOrBatch(
    request,
    'Verify',
    (item) => ({
      ...message(item, signing.prehashed),
      ...parsedSignature(signing, requiredText(item, 'signature')),
      algorithm: signing.algorithm,
    }),
    valid,
  );
}

export const signingRoutes: VaultRoute[] = [
  { method: 'POST', path: 'sign/:name/:hash?', primary: 'Sign', run: sign },
  { method: 'POST', path: 'verify/:name/:hash?', primary: 'Verify', run: verify },
  { method: 'POST', path: 'hmac/:name/:hash?', primary: 'Sign', run: hmac },
];
