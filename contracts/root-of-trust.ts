import { randomBytes } from 'node:crypto';
import type { Test } from 'tap';
import type { RootOfTrust } from '../kernel/ports/root-of-trust.ts';

/**
 * The conformance suite every root of trust passes. `open` gives a started instance; `reopen`, where
 * the implementation can be restarted with the same key-encryption key, a second instance over it.
 */
export function rootOfTrustContract(t: Test, open: () => Promise<RootOfTrust>, reopen?: () => Promise<RootOfTrust>): void {
  t.test('wraps and unwraps material byte for byte, and never returns it in the clear', async (t) => {
    const rot = await open();
    t.match(rot.name, /\S/, 'has a name');
    for (const size of [16, 32, 1218, 3300]) {
      const material = randomBytes(size);
      const wrapped = await rot.wrap(material, 'key-1/material-1');
      t.notOk(wrapped.includes(material.subarray(0, 16)), 'the wrapped blob does not contain the material');
      t.same(await rot.unwrap(wrapped, 'key-1/material-1'), material);
    }
    await rot.stop?.();
  });

  t.test('a blob is bound to its aad: moved to another key or version it does not unwrap', async (t) => {
    const rot = await open();
    const wrapped = await rot.wrap(randomBytes(32), 'key-1/material-1');
    await t.rejects(rot.unwrap(wrapped, 'key-2/material-1'));
    await t.rejects(rot.unwrap(wrapped, 'key-1/material-2'));
    await rot.stop?.();
  });

  t.test('a tampered or truncated blob is refused, never decrypted to garbage', async (t) => {
    const rot = await open();
    const wrapped = await rot.wrap(randomBytes(32), 'k/m');
    for (const i of [0, 1, Math.floor(wrapped.length / 2), wrapped.length - 1]) {
      const bad = Buffer.from(wrapped);
      bad[i]! ^= 0x01;
      await t.rejects(rot.unwrap(bad, 'k/m'), `a flipped bit at byte ${i}`);
    }
    await t.rejects(rot.unwrap(wrapped.subarray(0, wrapped.length - 4), 'k/m'), 'truncated');
    await t.rejects(rot.unwrap(Buffer.alloc(0), 'k/m'), 'empty');
    await rot.stop?.();
  });

  t.test('two wraps of the same material differ (fresh randomness per wrap)', async (t) => {
    const rot = await open();
    const material = randomBytes(32);
    t.notSame(await rot.wrap(material, 'k/m'), await rot.wrap(material, 'k/m'));
    await rot.stop?.();
  });

  t.test('a probe succeeds while the instance can wrap', async (t) => {
    const rot = await open();
    await rot.probe?.();
    t.pass('probe resolved');
    await rot.stop?.();
  });

  if (reopen) {
    t.test('a blob wrapped before a restart unwraps after it', async (t) => {
      const first = await open();
      const material = randomBytes(32);
      const wrapped = await first.wrap(material, 'k/m');
      await first.stop?.();
      const second = await reopen();
      t.same(await second.unwrap(wrapped, 'k/m'), material);
      await second.stop?.();
    });
  }
}
