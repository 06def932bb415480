import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serverEntry } from './server-entry.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface ServiceProcess {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the port once the service logs that it listens; rejects if it exits first. */
  listening: Promise<number>;
  exited: Promise<number | null>;
}

/**
 * Runs the server as its own process (serverEntry: the build, or the sources when they changed since), the way `npm
 * start` does, with exactly the given environment.
 */
export function spawnService(env: Record<string, string>, args: string[] = []): ServiceProcess {
  const child = spawn(process.execPath, [...serverEntry(), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const listening = new Promise<number>((resolve, reject) => {
    child.stderr!.on('data', (d) => {
      err += d;
      const m = /"msg":"listening".*"port":(\d+)/.exec(err);
      if (m) resolve(Number(m[1]));
    });
    void exited.then((code) => reject(new Error(`service exited with ${code} before listening:\n${err}`)));
  });
  listening.catch(() => {});
  return { child, stdout: () => out, stderr: () => err, listening, exited };
}
