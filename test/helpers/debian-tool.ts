import { execFileSync } from 'node:child_process';

/**
 * The path of a command a test needs, installed from Debian's packages when missing (as root, as
 * .ci/run runs); undefined when it is not there and cannot be installed, for serverMissing to report.
 */
export function debianTool(command: string, debianPackage: string): string | undefined {
  const find = () =>
    execFileSync('bash', ['-c', `command -v ${command} || true`], { encoding: 'utf8' }).trim() || undefined;
  if (find()) return find();
  try {
    execFileSync(
      'bash',
      ['-c', `apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${debianPackage}`],
      { stdio: 'ignore' },
    );
  } catch {
    return undefined;
  }
  return find();
}
