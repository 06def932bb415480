import type { Test } from 'tap';
import type { RevocationList } from '../kernel/index.ts';

let n = 0;
const jti = () => `contract-jti-${process.pid}-${Date.now()}-${++n}`;
const inSeconds = (s: number) => Math.floor(Date.now() / 1000) + s;

/** The conformance suite every revocation list passes. `open` gives a started, empty-enough list. */
export function revocationContract(
  t: Test,
  open: () => Promise<RevocationList>,
  opts: { shared?: () => Promise<RevocationList> } = {},
): void {
  t.test('a revoked jti reads revoked; others do not', async (t) => {
    const list = await open();
    const a = jti();
    t.equal(await list.isRevoked(a), false);
    await list.revoke(a, inSeconds(600));
    t.equal(await list.isRevoked(a), true);
    t.equal(await list.isRevoked(jti()), false);
    await list.stop?.();
  });

  t.test('revoking twice is harmless; an unknown expiry keeps the entry', async (t) => {
    const list = await open();
    const a = jti();
    await list.revoke(a, undefined);
    await list.revoke(a, undefined);
    t.equal(await list.isRevoked(a), true);
    await list.stop?.();
  });

  t.test('an entry whose token has expired may be forgotten: it never reads revoked for a later jti', async (t) => {
    const list = await open();
    const old = jti();
    await list.revoke(old, inSeconds(-3600));
    t.equal(await list.isRevoked(jti()), false);
    await list.stop?.();
  });

  if (opts.shared) {
    t.test('a revocation on one instance is seen by another over the same store', async (t) => {
      const a = await open();
      const b = await opts.shared!();
      const id = jti();
      await a.revoke(id, inSeconds(600));
      t.equal(await b.isRevoked(id), true);
      await a.stop?.();
      await b.stop?.();
    });
  }
}
