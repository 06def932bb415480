/** True when a driver error is a primary-key/unique violation (SQLite, PostgreSQL, MySQL/MariaDB). */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; errno?: number };
  return (
    e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' ||
    e.code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    e.code === '23505' ||
    e.code === 'ER_DUP_ENTRY' ||
    e.errno === 1062
  );
}
