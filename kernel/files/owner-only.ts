import { chmodSync, lstatSync, renameSync, statSync, type Stats } from 'node:fs';
import type { Logger } from '../ports/logger.ts';

const octal = (mode: number) => `0${(mode & 0o777).toString(8)}`;

/** The file's stat (`lstatSync` to see a link itself), or undefined when it does not exist. */
function statIfPresent(file: string, stat: (file: string) => Stats = statSync): Stats | undefined {
  try {
    return stat(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

const ownedByAnother = (stat: Stats): boolean => typeof process.getuid === 'function' && stat.uid !== process.getuid();

/**
 * A file of the service's own (its data: journal, audit, KEK, dead letters) found readable or writable by
 * anyone but the service's user, say a kek.key restored from a backup as 0644, is narrowed to 0600 with a
 * warning naming it. The service makes its files 0600 itself (umask 077); this repairs what someone else
 * left. A file that cannot be narrowed (another user owns it) fails with a sentence saying so, since it
 * would stay open to others. `what` names the file's role in the warning, `advice` what to do about what
 * others may have read meanwhile.
 */
export function narrowToOwner(file: string, what: string, logger: Pick<Logger, 'warn'>, advice = ''): void {
  const stat = statIfPresent(file);
  if (!stat?.isFile() || (stat.mode & 0o077) === 0) return;
  try {
    chmodSync(file, 0o600);
  } catch (err) {
    throw new Error(
      `${what} ${file} is mode ${octal(stat.mode)} (open to other users) and cannot be narrowed to 0600: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}; make the service's user its owner and run chmod 600 on it`,
    );
  }
  logger.warn(
    `${what} was mode ${octal(stat.mode)}, open to other users; narrowed to 0600${advice ? `; ${advice}` : ''}`,
    { file },
  );
}

/**
 * Whether someone other than the service's user could have written the file: group or other write bits, or another
 * owner.
 */
export function othersCouldWrite(stat: Stats): boolean {
  return (stat.mode & 0o022) !== 0 || ownedByAnother(stat);
}

/**
 * A file whose content the service will act on (an audit dead-letter file, whose lines a replay delivers
 * signed) that others could have written is not trusted: narrowing it now would not undo what they wrote.
 * It is renamed to `<file>.untrusted-<ms>` (narrowed to 0600 where possible), where nothing reads it, and
 * a warning names it; the operator inspects it and appends the lines they vouch for to the file. Returns
 * the new name, or undefined when the file is missing or trusted (then only narrowed if others could read it).
 */
export function setAsideIfOthersCouldWrite(
  file: string,
  what: string,
  logger: Pick<Logger, 'warn'>,
): string | undefined {
  const link = statIfPresent(file, lstatSync);
  if (!link) return undefined;
  // A symbolic link in its place (possible only where others can write the folder) would send the
  // service's appends, and the replay's reads, to a file of someone else's choosing.
  const why = link.isSymbolicLink()
    ? 'is a symbolic link'
    : othersCouldWrite(link)
      ? `could be written by other users (mode ${octal(link.mode)}${ownedByAnother(link) ? `, owner uid ${link.uid}` : ''})`
      : undefined;
  if (!why) {
    if (link.isFile()) narrowToOwner(file, what, logger);
    return undefined;
  }
  const aside = `${file}.untrusted-${Date.now()}`;
  renameSync(file, aside);
  try {
    if (!link.isSymbolicLink()) chmodSync(aside, 0o600);
  } catch {
    // Another user's file: it stays theirs, but nothing of the service reads it any more.
  }
  logger.warn(
    `${what} ${why}, so its lines may not be the service's: moved aside and not replayed; inspect it and append the lines you trust to the file`,
    { file, movedTo: aside },
  );
  return aside;
}

const warnedFolders = new Set<string>();

/**
 * A folder holding the service's files that other users can write lets them put files in it (a dead
 * letter of their own, a link where the service will write); one they can read lets them list it. The
 * service does not change a folder's mode (an operator may share its parent with a backup agent), but
 * says so once per folder.
 */
export function warnIfFolderOpen(folder: string, logger: Pick<Logger, 'warn'>): void {
  const stat = statIfPresent(folder);
  if (!stat?.isDirectory() || (stat.mode & 0o077) === 0 || warnedFolders.has(folder)) return;
  warnedFolders.add(folder);
  logger.warn(
    `the folder of the service's files is mode ${octal(stat.mode)}, open to other users${(stat.mode & 0o022) !== 0 ? ' (they can add or replace files in it)' : ''}; make it 0700 (chmod 700)`,
    { folder },
  );
}
