import { open, readFile, rm } from 'node:fs/promises';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Runs `work` while holding `<file>.lock`, created exclusively and holding this process's pid, so that
 * processes sharing one SQLite file on one host take turns (schema migrations at start). A lock whose
 * owner is no longer running is taken over; one held longer than `timeoutMs` fails with a sentence.
 */
export async function withFileLock<T>(file: string, timeoutMs: number, work: () => Promise<T>): Promise<T> {
  const lock = `${file}.lock`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const handle = await open(lock, 'wx', 0o600);
      await handle.writeFile(String(process.pid));
      await handle.close();
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number((await readFile(lock, 'utf8').catch(() => '')).trim());
      if (owner > 0 && !isAlive(owner)) {
        await rm(lock, { force: true });
        continue;
      }
      if (Date.now() > deadline)
        throw new Error(`${lock} is held by process ${owner || 'unknown'} for longer than ${timeoutMs} ms`);
      await pause(25 + Math.random() * 50);
    }
  }
  try {
    return await work();
  } finally {
    await rm(lock, { force: true });
  }
}
