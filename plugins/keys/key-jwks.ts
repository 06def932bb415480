import type { JsonWebKey } from 'node:crypto';
import { type ManagedKey, SvcError, type TraceScope, UNTRACED } from '../../kernel/index.ts';
import { resolveSigAlgorithm, signMessage } from './crypto/signatures.ts';
import { producingKey, type RotationHooks } from './key-crypto.ts';
import { requireEnabled, requireNotScheduled } from './key-state.ts';
import type { KeyStore } from './key-store.ts';

/** The JWS `alg` of each of the service's signature algorithms that JOSE names. */
const JWS_ALGORITHMS: Record<string, string> = {
  EcdsaSha256: 'ES256',
  EcdsaSha384: 'ES384',
  EcdsaSha512: 'ES512',
  Ed25519: 'EdDSA',
  Ed448: 'EdDSA',
  RsaPssSha256: 'PS256',
  RsaPssSha384: 'PS384',
  RsaPssSha512: 'PS512',
  RsaPkcs1Sha256: 'RS256',
  RsaPkcs1Sha384: 'RS384',
  RsaPkcs1Sha512: 'RS512',
};
/** JOSE fixes the curve of each ECDSA algorithm; the JWK's `alg` says which one a key is for. */
const EC_ALG: Record<string, string> = { 'P-256': 'ES256', 'P-384': 'ES384', 'P-521': 'ES512' };
const base64url = (data: string | Buffer) => Buffer.from(data).toString('base64url');

/** The key's algorithm for a JWS `alg` (the key's default when none is asked for). */
function signatureAlgorithmFor(key: ManagedKey, alg: unknown): string {
  if (alg === undefined) {
    const chosen = resolveSigAlgorithm(key.spec, undefined);
    if (!JWS_ALGORITHMS[chosen]) throw new SvcError('InvalidField', `a ${key.spec.algorithm} key does not sign JWTs`);
    if (key.spec.algorithm !== 'EC') return chosen;
    // JOSE pairs each ECDSA algorithm with one curve: the curve's own, whatever the key's default hash.
    const jose = EC_ALG[key.spec.curve!];
    if (!jose)
      throw new SvcError('InvalidField', `JOSE pairs no ES algorithm this service offers with ${key.spec.curve} keys`);
    return resolveSigAlgorithm(key.spec, `EcdsaSha${jose.slice(2)}`);
  }
  const entry = Object.entries(JWS_ALGORITHMS).find(
    ([ours, jws]) => jws === alg && (jws !== 'EdDSA' || ours === key.spec.curve),
  );
  if (!entry)
    throw new SvcError(
      'InvalidField',
      `header.alg must be one of ${[...new Set(Object.values(JWS_ALGORITHMS))].join(', ')}`,
    );
  if (key.spec.algorithm === 'EC' && EC_ALG[key.spec.curve!] !== alg)
    throw new SvcError(
      'InvalidField',
      `header.alg ${String(alg)} does not fit a ${key.spec.curve} key (JOSE pairs ${EC_ALG[key.spec.curve!] ?? 'no algorithm'} with it)`,
    );
  return resolveSigAlgorithm(key.spec, entry[0]);
}

/**
 * JSON Web Keys of a key's public halves, and JWTs signed with it: `kid` is `<key id>:<version>`, so a
 * verifier picks the version that signed; every version the key still holds is listed, so tokens signed
 * before a rotation verify until the old version is trimmed.
 */
export class KeyJwks {
  constructor(
    private readonly store: KeyStore,
    private readonly rotation: RotationHooks,
  ) {}

  async jwks(id: string, trace: TraceScope = UNTRACED): Promise<{ keys: JsonWebKey[] }> {
    const key = await this.store.get(id, trace);
    if (key.spec.objectType !== 'PrivateKey')
      throw new SvcError('IllegalOperation', `key ${id} is a ${key.spec.algorithm} key and has no public key`);
    if (key.spec.parameterSet)
      throw new SvcError(
        'IllegalOperation',
        `key ${id} is a ${key.spec.parameterSet} key: JOSE has no registered form for it`,
      );
    if (key.state === 'Destroyed') throw new SvcError('IllegalOperation', `key ${id} is Destroyed`);
    // Its private key is known outside: a token it signs proves nothing, so no verifier may be told to trust it.
    if (key.state === 'Compromised')
      throw new SvcError('IllegalOperation', `key ${id} is Compromised: its public keys are no longer offered`);
    requireEnabled(key, 'jwks');
    requireNotScheduled(key, 'jwks');
    const keys: JsonWebKey[] = [];
    for (let version = key.currentVersion; version >= (key.minVersion ?? 1); version--) {
      const material = await this.store.materialOf(key, version, trace);
      const jwk = material.publicKey!.export({ format: 'jwk' });
      const alg =
        key.spec.algorithm === 'EC' ? EC_ALG[key.spec.curve!] : key.spec.algorithm === 'EdDSA' ? 'EdDSA' : undefined;
      keys.push({ ...jwk, kid: `${id}:${version}`, use: 'sig', ...(alg ? { alg } : {}) });
    }
    return { keys };
  }

  /** A compact JWS of `payload` under the key's current version; `header` may name `alg` and add members. */
  async signJwt(
    id: string,
    header: Record<string, unknown>,
    payload: Record<string, unknown>,
    trace: TraceScope = UNTRACED,
  ) {
    const key = await producingKey(this.store, this.rotation, id, 'Sign', trace);
    const algorithm = signatureAlgorithmFor(key, header.alg);
    const protectedHeader = {
      ...header,
      alg: JWS_ALGORITHMS[algorithm]!,
      typ: header.typ ?? 'JWT',
      kid: `${id}:${key.currentVersion}`,
    };
    const signingInput = `${base64url(JSON.stringify(protectedHeader))}.${base64url(JSON.stringify(payload))}`;
    const material = await this.store.materialOf(key, key.currentVersion, trace);
    const signature = signMessage(algorithm, material, Buffer.from(signingInput), 'ieee-p1363');
    this.rotation.afterProduce(key);
    return {
      jwt: `${signingInput}.${signature.toString('base64url')}`,
      kid: protectedHeader.kid,
      alg: protectedHeader.alg,
      keyVersion: key.currentVersion,
    };
  }
}
