import { type AnyOperation, defineOperation, keyResource } from '../../../kernel/index.ts';
import * as J from '../../../schemas/jwks.ts';
import * as S from '../../../schemas/keys.ts';
import type { KeyJwks } from '../key-jwks.ts';

const byKey = (input: { id?: unknown } | undefined) => keyResource(input?.id);

/** A key's public halves as a JWKS, and JWTs signed with it. */
export function jwksOperations(jwks: KeyJwks): AnyOperation[] {
  return [
    defineOperation({
      id: 'GetKeyJwks',
      operation: 'Get',
      group: 'Keys',
      summary: "The key's public keys as a JSON Web Key Set (every version it holds)",
      description:
        "The public halves of an RSA, EC or EdDSA key's versions as a JWKS (kid `<key id>:<version>`), for " +
        'verifiers of the JWTs sign-jwt makes. IllegalOperation for a symmetric, Destroyed, disabled or ' +
        'scheduled key. Changes nothing.',
      errors: ['KeyNotFound', 'IllegalOperation'],
      input: S.KeyRef,
      output: J.Jwks,
      http: { method: 'GET', path: '/v1/keys/:id/jwks' },
      resource: byKey,
      attributes: { readOnly: true },
      handle: async (input, call) => ({ result: await jwks.jwks(input.id, call.trace) }),
    }),
    defineOperation({
      id: 'SignJwt',
      operation: 'Sign',
      group: 'Crypto',
      summary: 'Sign a JWT: the compact JWS of a payload, with the current version',
      description:
        'Sign the claims as a compact JWS (RFC 7515) with an Active RSA, EC or EdDSA key: header.alg picks ' +
        'ES256/384/512 (by the curve), EdDSA, PS256/384/512 or RS256/384/512; kid names the key version, which ' +
        "the key's JWKS (GET /v1/keys/{id}/jwks, or /.well-known/jwks.json for keys tagged jwks=public) lists.",
      errors: ['KeyNotFound', 'IllegalOperation'],
      input: J.SignJwtInput,
      output: J.SignJwtResponse,
      http: { method: 'POST', path: '/v1/keys/:id/sign-jwt' },
      resource: byKey,
      handle: async (input, call) => {
        const result = await jwks.signJwt(input.id, input.header ?? {}, input.payload, call.trace);
        return { result, audit: { context: { keyVersion: String(result.keyVersion), alg: result.alg } } };
      },
    }),
  ];
}
