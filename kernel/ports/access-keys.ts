import type { AuditRecord, Principal } from '../model/index.ts';
import { createPortRef } from './port-ref.ts';
import type { WrappedKey } from './root-of-trust.ts';

/**
 * An access key id: `AKSV` and 16 characters of RFC 4648's base32 alphabet (20 in all, the length and
 * alphabet of AWS's own ids, which SDKs and tools expect). 80 random bits follow the prefix.
 */
export const ACCESS_KEY_ID_PATTERN = /^AKSV[A-Z2-7]{16}$/;

export const isAccessKeyId = (text: unknown): text is string =>
  typeof text === 'string' && ACCESS_KEY_ID_PATTERN.test(text);

/** One access key as the journal keeps it: never its secret in the clear. */
export interface AccessKeyRecord {
  /** `AKSV` + 16 characters of [A-Z2-7]: unique. */
  accessKeyId: string;
  /**
   * Who a call signed with the key acts as: a snapshot of a Human (subject and groups at creation) or a
   * Service, never with its `credential`, never an Agent.
   */
  principal: Principal;
  /** The secret sealed under the root of trust (`wrap(secret, accessKeyId)`). */
  sealedSecret: WrappedKey;
  /** ISO 8601. */
  createdAt: string;
  /** The subject of the Human who created it. */
  createdBy: string;
}

/**
 * The access keys, kept in the journal's storage (journal.accessKeys). Contract (contracts/access-key-store.ts
 * runs it on every journal backend):
 * - `create` stores a new key. An id already stored throws `AccessKeyIdTaken`; with `maxPerPrincipal`, a
 *   principal (kind and subject) already holding that many keys throws `AccessKeyLimitReached`. Either way
 *   nothing is written. The count and the insert are one step across every node of the storage: of
 *   concurrent creates for one principal, no more than its free places succeed.
 * - An `audit` record given with `create` or `remove` is written in the same transaction into the audit
 *   outbox, so the change and its record exist together or not at all.
 * - `get` is current: a `remove` committed on any node is seen by the next `get` (nothing is cached).
 * - `list` answers keys by accessKeyId ascending, after `after` (an id), those whose principal's subject is
 *   `principal` when given (Humans and Services alike), at most `limit`.
 * - `remove` deletes the key; false when no such key is stored.
 * - Records read back field for field as they were created (groups, unicode subjects, the sealed blob).
 */
export interface AccessKeyStore {
  create(record: AccessKeyRecord, options?: { maxPerPrincipal?: number; audit?: AuditRecord }): Promise<void>;
  get(accessKeyId: string): Promise<AccessKeyRecord | undefined>;
  list(filter: { principal?: string; limit: number; after?: string }): Promise<AccessKeyRecord[]>;
  remove(accessKeyId: string, audit?: AuditRecord): Promise<boolean>;
}

/**
 * What a door that verifies signatures (Signature Version 4) needs: the door depends on this port, never
 * on the plugin that provides it.
 */
export interface AccessKeyCredentials {
  /**
   * The live key's principal and secret (the text the client signs with), or undefined for an unknown or
   * deleted key, or text that is no access key id. Each call reads the store, so a key deleted on any node
   * is refused at its next use.
   */
  resolve(accessKeyId: string): Promise<{ principal: Principal; secret: string } | undefined>;
}

export const accessKeyCredentialsPort = createPortRef<AccessKeyCredentials>('accessKeyCredentials');

/** An access key was to be stored under an id another key holds. */
export class AccessKeyIdTaken extends Error {
  constructor(readonly accessKeyId: string) {
    super(`journal: access key id ${accessKeyId} is taken`);
    this.name = 'AccessKeyIdTaken';
  }
}

/** An access key was to be stored for a principal that already holds the most it may. */
export class AccessKeyLimitReached extends Error {
  constructor(readonly limit: number) {
    super(`journal: the principal already holds ${limit} access keys`);
    this.name = 'AccessKeyLimitReached';
  }
}
