import { type OperationCall, SvcError } from '../../kernel/index.ts';

/** The tag that lists a key's public keys in the public /.well-known/jwks.json. */
export const PUBLISHED_TAG = 'jwks';
export const PUBLISHED_VALUE = 'public';

/**
 * Publishing a key is a deployment-wide act: /.well-known/jwks.json is the key set every verifier of the
 * deployment's JWTs trusts, so a key listed there mints tokens they all accept. Setting jwks=public (at
 * create, import or tag) needs `Administer` on `jwks:public`, not only the right to tag one's own key.
 */
export function requirePublishRight(tags: Record<string, string> | undefined, call: OperationCall): void {
  if (tags?.[PUBLISHED_TAG] !== PUBLISHED_VALUE) return;
  if (!call.permits('Administer', `${PUBLISHED_TAG}:${PUBLISHED_VALUE}`))
    throw new SvcError(
      'PermissionDenied',
      'the tag jwks=public lists the key in /.well-known/jwks.json, the key set every verifier of this ' +
        "deployment's JWTs trusts: setting it needs Administer (on jwks:public)",
    );
}
