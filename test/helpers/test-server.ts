import { createServer } from 'node:net';
import type { Test } from 'tap';

/**
 * A server a test needs is not there: the test is skipped, or failed under SVC_TEST_REQUIRE_SERVICES=1
 * (CI), where a missing server is a broken set-up, never a pass. Returns undefined for the caller to return.
 */
export function serverMissing(t: Test, why: string): undefined {
  if (process.env.SVC_TEST_REQUIRE_SERVICES === '1') t.fail(why);
  else t.skip(why, () => {});
  return undefined;
}

/** A TCP port free on 127.0.0.1 right now, for a server the test starts itself. */
export const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
