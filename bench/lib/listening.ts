import type { ChildProcess } from 'node:child_process';

/**
 * Resolves with the service's URL, and what it logged until then, once the child logs that it listens (its stderr must
 * be piped); rejects
 * with what it wrote if it exits first. Free of side effects, unlike harness.ts (which pins the bench to a core
 * when imported), so a bench that must not be pinned can use it.
 */
export function whenListening(
  child: ChildProcess,
  what: string,
): Promise<{ child: ChildProcess; url: string; logged: string }> {
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr!.on('data', (d) => {
      err += d;
      const m = /"msg":"listening".*?"port":(\d+)/.exec(err);
      if (m) resolve({ child, url: `http://127.0.0.1:${m[1]}`, logged: err });
    });
    child.on('exit', (code) => reject(new Error(`${what} exited ${code}: ${err}`)));
  });
}
