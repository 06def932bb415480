import { KeyModelCalls } from './key-model-calls.ts';
import type { CallOptions } from './transport.ts';
import type * as T from './types.ts';

/**
 * Access keys: the credentials AWS SDKs and the AWS CLI sign requests with (Signature Version 4), made,
 * listed and deleted by Humans. SvcClient extends this class, so these are methods of every client; they
 * live apart from client.ts only to keep each file to one concern. Only listAccessKeys is retried.
 */
export class AccessKeyCalls extends KeyModelCalls {
  /**
   * A new access key for the calling Human, or with `service` for that Service. The answer's
   * `secretAccessKey` is shown this once: keep it, the service stores it only sealed. 409 IllegalOperation
   * when the principal already holds 10. Never retried (a retry would make a second key).
   */
  createAccessKey(options: { service?: string } = {}, opts?: CallOptions): Promise<T.CreatedAccessKey> {
    const body = options.service === undefined ? {} : { service: options.service };
    return this.http.send({ method: 'POST', path: '/v1/access-keys', body, idempotent: false }, opts);
  }

  /** One page of access keys by id (never a secret); while `nextAfter` is present, pass it as `after`. */
  listAccessKeys(query: T.AccessKeyQuery = {}, opts?: CallOptions): Promise<T.AccessKeyList> {
    return this.http.send({ method: 'GET', path: '/v1/access-keys', query: { ...query }, idempotent: true }, opts);
  }

  /** Every page of listAccessKeys, each from the `nextAfter` of the one before. */
  async *accessKeyPages(
    query: Omit<T.AccessKeyQuery, 'after'> = {},
    opts?: CallOptions,
  ): AsyncGenerator<T.AccessKey[]> {
    for (let after: string | undefined; ; ) {
      const page = await this.listAccessKeys({ ...query, ...(after === undefined ? {} : { after }) }, opts);
      if (page.accessKeys.length) yield page.accessKeys;
      if (page.nextAfter === undefined) return;
      after = page.nextAfter;
    }
  }

  /** Deletes an access key: requests signed with it are refused from the next one on. NotFound for an unknown id. */
  deleteAccessKey(accessKeyId: string, opts?: CallOptions): Promise<T.DeletedAccessKey> {
    return this.http.send(
      { method: 'DELETE', path: `/v1/access-keys/${encodeURIComponent(accessKeyId)}`, idempotent: false },
      opts,
    );
  }
}
