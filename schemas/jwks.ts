import { Type } from '@sinclair/typebox';
import { KeyId } from './keys.ts';

/** JSON Web Keys and compact JWS (RFC 7517, RFC 7515). */

export const Jwks = Type.Object(
  {
    keys: Type.Array(Type.Record(Type.String(), Type.Unknown()), {
      description:
        'one JWK per version the key still holds, newest first: kid `<key id>:<version>`, use sig, alg for EC and EdDSA keys',
    }),
  },
  { title: 'Jwks' },
);

export const SignJwtBody = Type.Object(
  {
    header: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description:
          'protected header members to add; `alg` picks the algorithm (ES256/384/512 by the curve, EdDSA, PS256/384/512, ' +
          "RS256/384/512; default the key's own: PS256 for RSA); `kid` and `typ` (JWT) are set by the service",
      }),
    ),
    payload: Type.Record(Type.String(), Type.Unknown(), { description: 'the claims, as JSON' }),
  },
  { additionalProperties: false, title: 'SignJwtRequest' },
);
export const SignJwtInput = Type.Object(
  { id: KeyId, ...SignJwtBody.properties },
  { additionalProperties: false, title: 'SignJwtInput' },
);
export const SignJwtResponse = Type.Object(
  {
    jwt: Type.String({ description: 'the compact JWS: header.payload.signature (ECDSA as r||s, as JOSE wants it)' }),
    kid: Type.String({ description: '`<key id>:<version>`, as in the JWKS' }),
    alg: Type.String(),
    keyVersion: Type.Integer(),
  },
  { title: 'SignJwtResponse' },
);
