import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';

/**
 * Client programs the interoperability tests run (Debian's AWS CLI, boto3, hvac): Debian's python3 by
 * its path (pyenv's python3 may come first on PATH and lack the distribution's modules).
 */
export const DEBIAN_PYTHON = '/usr/bin/python3';

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a client to its end and answers its exit code and output; never throws. */
export function runClient(
  command: string,
  args: string[],
  options: { env: NodeJS.ProcessEnv; cwd?: string; input?: string },
) {
  return new Promise<Ran>((resolve) => {
    // Asynchronous: the service under test answers from this same process.
    const child = execFile(
      command,
      args,
      { env: options.env, cwd: options.cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 120_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
    if (options.input !== undefined) child.stdin!.end(options.input);
  });
}

/** Whether Debian's python3 imports `module`; installs `debianPackage` when it does not (as root, as CI runs). */
export async function debianPythonModule(module: string, debianPackage: string): Promise<boolean> {
  const probe = async () =>
    existsSync(DEBIAN_PYTHON) &&
    (await runClient(DEBIAN_PYTHON, ['-c', `import ${module}`], { env: { PATH: '/usr/bin:/bin' } })).code === 0;
  if (await probe()) return true;
  await runClient(
    'bash',
    ['-c', `apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${debianPackage}`],
    { env: process.env },
  );
  return probe();
}
