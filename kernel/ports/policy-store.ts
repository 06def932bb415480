import type { AuditRecord } from '../model/index.ts';

/**
 * A role-based policy's bindings as one document: group -> binding and subject -> binding, each binding as
 * its operator wrote it (the policy plugin reads and checks them; the store keeps them as given).
 */
export interface PolicyDocument {
  roleBindings: Record<string, unknown>;
  subjectBindings: Record<string, unknown>;
}

/** One stored version of the policy: versions are numbered 1, 2, 3 ... with no gap, each written once. */
export interface PolicyVersion {
  version: number;
  document: PolicyDocument;
  /** ISO time of the write. */
  createdAt: string;
  /** The subject that wrote it (`configuration` for the version seeded from the settings). */
  createdBy: string;
}

/** A version about to be written: its number is the one after the version the writer read. */
export type NewPolicyVersion = Omit<PolicyVersion, 'version'>;

/**
 * The versions of the policy, kept in the journal's storage so that every node of a deployment reads
 * the same ones. Contract (contracts/policy-store.ts runs it on every journal backend):
 * - `put` writes version `expectedVersion + 1` only while the latest stored version is `expectedVersion`
 *   (0: none yet); otherwise it writes nothing and answers false. The check and the write are one step
 *   across every node of the storage: of concurrent puts naming one expected version, exactly one wins.
 *   An `audit` record given with it is written in the same transaction into the audit outbox, so the
 *   change and its record exist together or not at all.
 * - `latestVersion` is cheap (one index lookup): nodes poll it to learn that a new version exists.
 * - `latest` is the newest version, undefined when none is stored; `history` the newest `limit` versions,
 *   newest first. Documents read back field for field as they were put.
 * - A version committed through another instance over the same storage is seen by the next call here.
 */
export interface PolicyStore {
  latest(): Promise<PolicyVersion | undefined>;
  latestVersion(): Promise<number>;
  put(next: NewPolicyVersion, expectedVersion: number, audit?: AuditRecord): Promise<boolean>;
  history(limit: number): Promise<PolicyVersion[]>;
}
