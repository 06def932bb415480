/**
 * What must be shared for several worker processes to be one node: each worker is a node of its own, so
 * key state and the audit trail live where every worker reads and writes them, and a token revoked
 * through one worker must be refused by the others. Returns one sentence per setting that cannot be
 * shared, naming it and its variable; empty when the configuration can run `workers` processes.
 */
export function unshareableSettings(
  values: Record<'journal' | 'audit' | 'revocation', { kind: string }>,
  workers: number,
): string[] {
  if (workers <= 1) return [];
  const why = `server.workers (env SVC_WORKERS) is ${workers}`;
  const problems: string[] = [];
  const sharedStores = ['rdb-server-1', 'rdb-server-2', 'rdb-embedded'];
  const journal = String(values.journal?.kind);
  if (!sharedStores.includes(journal)) {
    problems.push(
      `journal.kind (env SVC_JOURNAL_KIND) is "${journal}", which lives in one process; ${why}, so it must be shared: rdb-server-1, rdb-server-2 or rdb-embedded`,
    );
  }
  const audit = String(values.audit?.kind);
  if (!sharedStores.includes(audit)) {
    problems.push(
      `audit.kind (env SVC_AUDIT_KIND) is "${audit}", which no worker can read back or chain with the others; ${why}, so it must be shared: rdb-server-1, rdb-server-2 or rdb-embedded`,
    );
  }
  const revocation = String(values.revocation?.kind);
  if (revocation !== 'kv-store' && revocation !== 'none') {
    problems.push(
      `revocation.kind (env SVC_REVOCATION_KIND) is "${revocation}": a token revoked through one worker would still be accepted by the others; ${why}, so use kv-store (shared) or none`,
    );
  }
  return problems;
}
