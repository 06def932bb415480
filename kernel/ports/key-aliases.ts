import type { AuditRecord } from '../model/index.ts';

/** One alias as the journal keeps it: `alias/NAME` naming one key. */
export interface KeyAlias {
  /** The whole alias, `alias/` included. */
  name: string;
  keyId: string;
  createdAt: string;
}

/**
 * What an alias is: `alias/` then 1..250 of A-Za-z0-9/_- (AWS KMS's alias names), never `alias/aws/...`,
 * which AWS reserves for its own keys and AWS clients treat as such.
 */
export const ALIAS_PATTERN = /^alias\/(?!aws\/)[A-Za-z0-9/_-]{1,250}$/;

export const isAlias = (text: unknown): text is string => typeof text === 'string' && ALIAS_PATTERN.test(text);

/**
 * The deployment's aliases, kept in the journal's storage. Contract (contracts/key-aliases.ts runs it on
 * every journal backend):
 * - An alias names exactly one key; `create` of an alias that exists throws `AliasTaken` and changes
 *   nothing, also when two writers race on one name across every node of the storage.
 * - `move` points an existing alias from `fromKeyId` to `toKeyId` only if it still names `fromKeyId`
 *   (false otherwise, nothing changed): a move never takes an alias another writer moved meanwhile.
 * - `remove` deletes the alias only if it names `keyId` (false otherwise).
 * - An `audit` record given with a change is written in the same transaction into the audit outbox.
 * - An append of a `Destroyed` event removes every alias of that key in the event's transaction.
 * - `resolve` answers the key an alias names now (one indexed read; on storage several nodes share,
 *   a change committed on another node is seen by the next `resolve`).
 */
export interface KeyAliases {
  resolve(name: string): Promise<string | undefined>;
  create(alias: KeyAlias, audit?: AuditRecord): Promise<void>;
  move(name: string, fromKeyId: string, toKeyId: string, audit?: AuditRecord): Promise<boolean>;
  remove(name: string, keyId: string, audit?: AuditRecord): Promise<boolean>;
  /** Aliases ordered by name, those of one key when `keyId` is given, after `after` (a name), at most `limit`. */
  list(filter: { keyId?: string; after?: string; limit: number }): Promise<KeyAlias[]>;
  /** The aliases of each of these keys (by name), for showing them with the keys. */
  ofKeys(keyIds: string[]): Promise<Map<string, string[]>>;
}

/** An alias was to be created under a name another key (or the same one) already holds. */
export class AliasTaken extends Error {
  constructor(readonly alias: string) {
    super(`journal: alias ${alias} already names a key`);
    this.name = 'AliasTaken';
  }
}
