import type { Knex } from 'knex';
import type { AuditRecord, NewPolicyVersion, PolicyStore, PolicyVersion } from '../../../kernel/index.ts';
import { isUniqueViolation } from '../../sql-support/unique-violation.ts';

interface PolicyRow {
  version: number | string;
  document: string;
  created_at: string;
  created_by: string;
}

const toVersion = (r: PolicyRow): PolicyVersion => ({
  version: Number(r.version),
  document: JSON.parse(r.document) as PolicyVersion['document'],
  createdAt: r.created_at,
  createdBy: r.created_by,
});

/**
 * A transaction the database rolled back to let a concurrent one through (a MySQL deadlock among writers of
 * the same version, a PostgreSQL serialization failure): that writer lost the race, as at the primary key.
 */
function isLostRace(err: unknown): boolean {
  const e = err as { code?: string; errno?: number };
  return e.code === 'ER_LOCK_DEADLOCK' || e.errno === 1213 || e.code === '40P01' || e.code === '40001';
}

/**
 * The policy versions in the journal's database (table svc_policy_versions, migration 019). The primary
 * key on version is what makes a put atomic across nodes: two writers that read the same latest version
 * both insert the next number, and the database lets one of them commit. Nothing is cached: nodes poll
 * `latestVersion` (the primary key's last entry), so a version another node committed is seen at once.
 */
export class KnexPolicyStore implements PolicyStore {
  constructor(private readonly run: <T>(work: (db: Knex) => Promise<T>) => Promise<T>) {}

  async latest(): Promise<PolicyVersion | undefined> {
    return (await this.history(1))[0];
  }

  async latestVersion(): Promise<number> {
    const row = await this.run((db) => db('svc_policy_versions').max({ latest: 'version' }).first());
    return Number((row as { latest: number | string | null } | undefined)?.latest ?? 0);
  }

  async put(next: NewPolicyVersion, expectedVersion: number, audit?: AuditRecord): Promise<boolean> {
    try {
      return await this.run((db) =>
        db.transaction(async (trx) => {
          // A writer that read an older version than the latest loses here; one that races another writer of
          // the same number loses at the primary key, when the other commits first.
          const row = await trx('svc_policy_versions').max({ latest: 'version' }).first();
          if (Number((row as { latest: number | string | null } | undefined)?.latest ?? 0) !== expectedVersion)
            return false;
          await trx('svc_policy_versions').insert({
            version: expectedVersion + 1,
            document: JSON.stringify(next.document),
            created_at: next.createdAt,
            created_by: next.createdBy,
          });
          if (audit)
            await trx('svc_audit_outbox').insert({
              id: audit.id,
              occurred_at: audit.occurredAt,
              record: JSON.stringify(audit),
            });
          return true;
        }),
      );
    } catch (err) {
      if (isUniqueViolation(err) || isLostRace(err)) return false;
      throw err;
    }
  }

  async history(limit: number): Promise<PolicyVersion[]> {
    if (limit <= 0) return [];
    const rows = await this.run((db) =>
      db<PolicyRow>('svc_policy_versions').orderBy('version', 'desc').limit(limit).select('*'),
    );
    return (rows as PolicyRow[]).map(toVersion);
  }
}
