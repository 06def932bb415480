import path from 'node:path';

/** SPEC's JDBC-style URLs and native ones, as knex connection settings (DECISIONS "Configuration"). */
export function sqlitePath(url: string): string {
  const file = url.replace(/^jdbc:sqlite:/, '').replace(/^sqlite:(\/\/)?/, '');
  if (!file || file === ':memory:' || file.includes('mode=memory')) {
    throw new Error(`rdb-embedded needs a file path, not an in-memory database: "${url}"`);
  }
  return path.resolve(file);
}
