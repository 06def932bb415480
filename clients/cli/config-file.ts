import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { UsageError } from './exit-codes.ts';

/** What `svc login` remembers: the server and who to be there. */
export interface SavedLogin {
  server: string;
  user?: string;
  groups?: string[];
  token?: string;
}

/** $XDG_CONFIG_HOME/svc/config.json, or ~/.config/svc/config.json. */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME || path.join(homedir(), '.config');
  return path.join(base, 'svc', 'config.json');
}

export function readLogin(file: string): SavedLogin | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    const parsed = JSON.parse(text) as SavedLogin;
    if (typeof parsed.server !== 'string') throw new Error('no "server"');
    return parsed;
  } catch (err) {
    throw new UsageError(
      `${file} is not a login file written by svc login (${(err as Error).message}); run svc login again`,
    );
  }
}

/** Written with mode 0600 (it may hold a token), in a folder only the user can read. */
export function writeLogin(file: string, login: SavedLogin): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${JSON.stringify(login, null, 2)}\n`, { mode: 0o600 });
  // writeFileSync keeps the mode of a file that already exists; make sure an old, looser file is tightened.
  chmodSync(file, 0o600);
}
