import { SvcApiError } from './errors.ts';
import type { CallOptions, Transport } from './transport.ts';
import type * as T from './types.ts';

const key = (id: string, rest = '') => `/v1/keys/${encodeURIComponent(id)}${rest}`;
// An alias is alias/NAME: its slash travels encoded (alias%2FNAME), as the service reads it from one segment.
const alias = (name: string) => `/v1/aliases/${encodeURIComponent(name)}`;

/**
 * The key model's calls: aliases, tags, the reversible disable and the role-based policy. SvcClient
 * extends this class, so they are methods of every client; they live apart from client.ts only to keep
 * each file to one concern. Wherever a key id is taken, an alias (`alias/NAME`) is taken too.
 */
export class KeyModelCalls {
  protected constructor(protected readonly http: Transport) {}

  // Aliases

  /**
   * Points `alias/NAME` at a key: creates the alias, or moves it from the key it names (the answer's
   * `previousKeyId`). With `createOnly` an alias that exists is a 409 IllegalOperation instead of a move.
   */
  putAlias(
    name: string,
    keyId: string,
    options: { createOnly?: boolean } = {},
    opts?: CallOptions,
  ): Promise<T.PutAliasResult> {
    const body = { keyId, ...(options.createOnly ? { createOnly: true } : {}) };
    return this.http.send({ method: 'PUT', path: alias(name), body, idempotent: false }, opts);
  }

  /** Deletes an alias (the key it named is unchanged); NotFound when it names no key. */
  deleteAlias(name: string, opts?: CallOptions): Promise<T.DeleteAliasResult> {
    return this.http.send({ method: 'DELETE', path: alias(name), idempotent: false }, opts);
  }

  /** One page of aliases by name (one key's with `keyId`); while `nextAfter` is present, pass it as `after`. */
  listAliases(query: T.AliasQuery = {}, opts?: CallOptions): Promise<T.AliasList> {
    return this.http.send({ method: 'GET', path: '/v1/aliases', query: { ...query }, idempotent: true }, opts);
  }

  /**
   * Every page of listAliases, each from the `nextAfter` of the one before, until a page has none. Empty
   * pages are skipped: the service may read past aliases of keys the caller may not read and answer none.
   */
  async *aliasPages(query: Omit<T.AliasQuery, 'after'> = {}, opts?: CallOptions): AsyncGenerator<T.Alias[]> {
    for (let after: string | undefined; ; ) {
      const page = await this.listAliases({ ...query, ...(after === undefined ? {} : { after }) }, opts);
      if (page.aliases.length) yield page.aliases;
      if (page.nextAfter === undefined) return;
      after = page.nextAfter;
    }
  }

  // Tags and the reversible disable

  /** Sets tags on a key, merged over the ones it has (a tag key given again takes the new value). */
  tagKey(id: string, tags: T.Tags, opts?: CallOptions): Promise<T.TagsResult> {
    return this.http.send({ method: 'PUT', path: key(id, '/tags'), body: { tags }, idempotent: false }, opts);
  }

  /** Removes the named tags (names the key does not carry are ignored); answers the tags left. */
  untagKey(id: string, tagKeys: string[], opts?: CallOptions): Promise<T.TagsResult> {
    // The names travel comma-separated: an element holding a comma (which no tag key may) would name two tags.
    const unsendable = tagKeys.find((name) => name.includes(','));
    if (unsendable !== undefined)
      throw new SvcApiError(
        'InvalidField',
        0,
        `"${unsendable}" is no tag key: tag keys hold no comma, and the service reads one as a separator`,
        '',
      );
    const query = { keys: tagKeys.join(',') };
    return this.http.send({ method: 'DELETE', path: key(id, '/tags'), query, idempotent: false }, opts);
  }

  /**
   * Pauses a key: it keeps its state, but every cryptographic call, public key and export is refused
   * until a Human enables it. Disabling a disabled key changes nothing.
   */
  disableKey(id: string, reason?: string, opts?: CallOptions): Promise<T.EnabledResult> {
    const body = reason === undefined ? {} : { reason };
    return this.http.send({ method: 'POST', path: key(id, '/disable'), body, idempotent: false }, opts);
  }

  /** Lifts the pause (Human callers only: a paused agent or service must not lift its own). */
  enableKey(id: string, opts?: CallOptions): Promise<T.EnabledResult> {
    return this.http.send({ method: 'POST', path: key(id, '/enable'), idempotent: false }, opts);
  }

  // The role-based policy

  /** The latest stored version of the bindings, with the `etag` putPolicy needs. */
  getPolicy(opts?: CallOptions): Promise<T.Policy> {
    return this.http.send({ method: 'GET', path: '/v1/policy', idempotent: true }, opts);
  }

  /**
   * Replaces both binding maps as the next version (Human callers only), if `etag` still names the latest
   * one: 412 PreconditionFailed when another change came first. `document` may be what getPolicy
   * answered, changed: only its two maps are sent. Never retried: a retry of a stored PUT would be a 412.
   */
  putPolicy(document: T.PolicyDocument, etag: string, opts?: CallOptions): Promise<T.Policy> {
    const body = { roleBindings: document.roleBindings, subjectBindings: document.subjectBindings };
    return this.http.send(
      { method: 'PUT', path: '/v1/policy', body, headers: { 'If-Match': etag }, idempotent: false },
      opts,
    );
  }
}
