import { chmod, link, lstat, mkdtemp, rm, stat, unlink } from 'node:fs/promises';
import { connect } from 'node:net';
import path from 'node:path';

/** How long a socket found at the path may take to accept before it is taken for a live server's. */
const PROBE_MS = 1_000;

/** A socket this plugin placed: `remove` unlinks it, only while the path still holds that same socket. */
export interface PlacedSocket {
  readonly path: string;
  remove(): Promise<void>;
}

const code = (err: unknown) => (err as NodeJS.ErrnoException)?.code;

/** Whether a server accepts connections on the socket at `at` (undecided within PROBE_MS counts as yes). */
function answers(at: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = connect(at);
    const done = (live: boolean) => {
      clearTimeout(timer);
      probe.destroy();
      resolve(live);
    };
    const timer = setTimeout(() => done(true), PROBE_MS);
    // Only a refusal means nothing serves there: a busy server (EAGAIN) or one this user may not reach
    // (EACCES) is alive, and its socket is not this plugin's to take.
    probe
      .once('connect', () => done(true))
      .once('error', (err) => done(code(err) !== 'ECONNREFUSED' && code(err) !== 'ENOENT'));
  });
}

/**
 * Makes way for the socket at `at`: nothing there is fine; a socket nothing answers on is a stale one (a previous
 * run that was killed) and is removed; a socket a server answers on, or anything that is not a socket (a file
 * someone named so, a folder), stops the boot with a sentence and is never touched.
 */
async function clearStale(at: string): Promise<void> {
  let found: Awaited<ReturnType<typeof lstat>>;
  try {
    found = await lstat(at);
  } catch (err) {
    if (code(err) === 'ENOENT') return;
    throw err;
  }
  if (!found.isSocket())
    throw new Error(
      `k8s.socket ${at} exists and is not a socket; svc-kms removes only a stale socket there: move the file or choose another path`,
    );
  if (await answers(at))
    throw new Error(`k8s.socket ${at}: another process serves on that socket; stop it or choose another path`);
  await unlink(at).catch((err) => {
    if (code(err) !== 'ENOENT') throw err;
  });
}

/**
 * The socket's folder must be writable by no one but its owner, this process's user or root: another user
 * who may write there can rename the socket away, or bind a socket of its own at the path while the service
 * restarts, and kube-apiserver would send that one every data key.
 */
async function requirePrivateFolder(folder: string): Promise<void> {
  const found = await stat(folder);
  const uid = process.getuid?.();
  if (uid !== undefined && found.uid !== uid && found.uid !== 0)
    throw new Error(
      `k8s.socket's folder ${folder} belongs to another user (uid ${found.uid}): it could move the socket; use a folder of the service's user (mode 0700)`,
    );
  if ((found.mode & 0o022) !== 0)
    throw new Error(
      `k8s.socket's folder ${folder} is writable by others (mode ${(found.mode & 0o7777).toString(8)}): they could put their own socket at the path; make it 0700 or 0755`,
    );
}

/**
 * Binds a socket at `at` that only this process's user can connect to, from its first moment.
 *
 * Binding at `at` and then chmod-ing it leaves a window in which anyone who may enter the folder can connect;
 * setting the process umask around the bind would close it, but the umask is process-wide (files other code
 * creates meanwhile would get it too) and worker threads cannot set it. Instead `bind` listens inside a fresh
 * folder beside `at` that mkdtemp creates with mode 0700, so no other user can reach the socket there; it is
 * made 0600, then hard-linked to `at`: link(2), unlike rename(2), fails rather than replace a file that appeared
 * at `at` meanwhile, and the folder is removed. A connection to `at` reaches the same socket (the inode).
 */
export async function placeSocket(at: string, bind: (staged: string) => Promise<void>): Promise<PlacedSocket> {
  await requirePrivateFolder(path.dirname(at));
  await clearStale(at);
  const folder = await mkdtemp(path.join(path.dirname(at), '.k8s-kms-'));
  try {
    const staged = path.join(folder, 's');
    await bind(staged);
    await chmod(staged, 0o600);
    await link(staged, at).catch((err) => {
      if (code(err) === 'EEXIST')
        throw new Error(`k8s.socket ${at} appeared while the plugin was starting; not replaced`);
      throw err;
    });
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
  const { dev, ino } = await lstat(at);
  return {
    path: at,
    remove: async () => {
      const now = await lstat(at).catch(() => undefined);
      if (now && now.dev === dev && now.ino === ino) await unlink(at).catch(() => undefined);
    },
  };
}
