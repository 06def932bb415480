import { type AnyOperation, defineOperation, namedResource, SvcError } from '../../kernel/index.ts';
import * as S from '../../schemas/access-keys.ts';
import { type AccessKeyIssuer, MAX_ACCESS_KEYS_PER_PRINCIPAL } from './access-key-issuer.ts';

/** Keys shown per page of the list when the caller does not say. */
const DEFAULT_LIST = 100;

/**
 * Access keys over the one pipeline: create, list, delete. All three are for Humans (credentials are a
 * person's business) and none is an MCP tool (`toolName: false`): an agent never mints, sees or removes a
 * credential. Create, Query and Revoke are asked of the policy on `access-key:*` and `access-key:<id>`.
 */
export function accessKeyOperations(issuer: AccessKeyIssuer): AnyOperation[] {
  return [
    defineOperation({
      id: 'CreateAccessKey',
      operation: 'Create',
      group: 'Access keys',
      summary: 'Create an access key for AWS Signature Version 4: for yourself, or for a Service (Human only)',
      description:
        'Create an access key id and secret access key that AWS SDKs and the AWS CLI sign requests with ' +
        "(Signature Version 4); a signed call acts as the key's principal. Body {} makes a key for the " +
        'calling Human (its groups as they are now), {"service": SUBJECT} one for that Service (which needs ' +
        'Administer as well: the key acts with every right the policy gives that name). The secret ' +
        `is answered once and stored only sealed. At most ${MAX_ACCESS_KEYS_PER_PRINCIPAL} per principal ` +
        '(IllegalOperation beyond). Human callers only.',
      errors: ['IllegalOperation'],
      input: S.CreateAccessKeyBody,
      output: S.CreateAccessKeyResponse,
      http: { method: 'POST', path: '/v1/access-keys', status: 201 },
      attributes: { humanOnly: true, toolName: false },
      resource: () => 'access-key:*',
      // Audited whatever the outcome, so a refused create still names the Service it was for.
      inputFacts: (input): Record<string, string> =>
        input.service === undefined
          ? {}
          : { 'accessKey.principal': input.service, 'accessKey.principalKind': 'Service' },
      handle: async (input, call) => {
        // A key for a Service is that Service's credential, with every right the policy gives its name:
        // minting one is policy administration, not key administration (a plain Create would let a key
        // admin act as any Service, or as a Human whose subject the Service is named after).
        if (
          input.service !== undefined &&
          !call.permits('Administer', namedResource('access-key:service:', input.service))
        )
          throw new SvcError(
            'PermissionDenied',
            `${call.principal.subject} may not create an access key for a Service: that needs Administer (as a policy change does)`,
          );
        return { result: await issuer.create(call, input.service) };
      },
    }),
    defineOperation({
      id: 'ListAccessKeys',
      operation: 'Query',
      group: 'Access keys',
      summary: 'List access keys by id, never their secrets (Human only)',
      description:
        'List access keys by id, a page at a time (after: the nextAfter of the previous page), those of ' +
        'one Human or Service with principal: each key id, its principal, when and by whom it was created. ' +
        'Never a secret. Needs Query on access-key:*, which shows every key. Changes nothing. Human callers only.',
      input: S.ListAccessKeysQuery,
      output: S.AccessKeyList,
      http: { method: 'GET', path: '/v1/access-keys' },
      attributes: { humanOnly: true, readOnly: true, toolName: false },
      resource: () => 'access-key:*',
      inputFacts: (input): Record<string, string> =>
        input.principal === undefined ? {} : { 'filter.principal': input.principal },
      handle: async (input) => {
        const page = await issuer.list({
          ...(input.principal === undefined ? {} : { principal: input.principal }),
          ...(input.after === undefined ? {} : { after: input.after }),
          limit: input.limit ?? DEFAULT_LIST,
        });
        return { result: page, audit: { context: { count: String(page.accessKeys.length) } } };
      },
    }),
    defineOperation({
      id: 'DeleteAccessKey',
      operation: 'Revoke',
      group: 'Access keys',
      summary: 'Delete an access key: every node refuses it from its next call (Human only)',
      description:
        'Delete an access key by its id: a request signed with it is refused from the next call on, on ' +
        'every node. Cannot be undone: create a new key instead. NotFound for an unknown id. Needs Revoke ' +
        'on access-key:<id>. Human callers only.',
      errors: ['NotFound'],
      input: S.AccessKeyRef,
      output: S.DeleteAccessKeyResponse,
      http: { method: 'DELETE', path: '/v1/access-keys/:accessKeyId' },
      // Like the kill switch: a leaked key's flood drains its principal's bucket and raises its risk, and
      // must not keep that principal from deleting it.
      attributes: { humanOnly: true, destructive: true, toolName: false, rateLimited: false, riskGated: false },
      resource: (input) => namedResource('access-key:', input?.accessKeyId),
      handle: async (input, call) => ({ result: await issuer.remove(call, input.accessKeyId) }),
    }),
  ];
}
