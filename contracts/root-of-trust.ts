import { randomBytes } from 'node:crypto';
import type { Test } from 'tap';
import type { RootOfTrust } from '../kernel/index.ts';

const keyId = () => `00000000-0000-4000-8000-${randomBytes(6).toString('hex')}`;

/**
 * The conformance suite every root of trust passes. `open` gives a started instance; `reopen`, where
 * the implementation can be restarted with the same KEK, a second instance over it.
 */
export function rootOfTrustContract(
  t: Test,
  open: () => Promise<RootOfTrust>,
  reopen?: () => Promise<RootOfTrust>,
): void {
  t.test(
    'wraps and unwraps a key-wrapping key byte for byte, naming the KEK, never returning it in the clear',
    async (t) => {
      const rot = await open();
      t.match(rot.name, /\S/, 'has a name');
      t.match(rot.currentKekId(), /\S/, 'names its current KEK');
      t.equal(rot.kekIds()[0], rot.currentKekId(), 'the current KEK is listed first');
      const id = keyId();
      const kwk = randomBytes(32);
      const wrapped = await rot.wrap(kwk, id);
      t.equal(wrapped.kekId, rot.currentKekId(), 'the blob names the KEK that wrapped it');
      t.notOk(wrapped.blob.includes(kwk.subarray(0, 16)), 'the wrapped blob does not contain the key');
      t.same(await rot.unwrap(wrapped, id), kwk);
      await rot.stop?.();
    },
  );

  t.test('a wrapped key is bound to its managed key: moved to another it does not unwrap', async (t) => {
    const rot = await open();
    const wrapped = await rot.wrap(randomBytes(32), keyId());
    await t.rejects(rot.unwrap(wrapped, keyId()));
    await rot.stop?.();
  });

  t.test('a tampered or truncated blob, or an unknown KEK, is refused, never decrypted to garbage', async (t) => {
    const rot = await open();
    const id = keyId();
    const wrapped = await rot.wrap(randomBytes(32), id);
    for (const i of [0, 1, Math.floor(wrapped.blob.length / 2), wrapped.blob.length - 1]) {
      const bad = Buffer.from(wrapped.blob);
      bad[i]! ^= 0x01;
      await t.rejects(rot.unwrap({ kekId: wrapped.kekId, blob: bad }, id), `a flipped bit at byte ${i}`);
    }
    await t.rejects(
      rot.unwrap({ kekId: wrapped.kekId, blob: wrapped.blob.subarray(0, wrapped.blob.length - 4) }, id),
      'truncated',
    );
    await t.rejects(rot.unwrap({ kekId: wrapped.kekId, blob: Buffer.alloc(0) }, id), 'empty');
    await t.rejects(rot.unwrap({ kekId: 'no-such-kek', blob: wrapped.blob }, id), 'a KEK it does not have');
    await rot.stop?.();
  });

  t.test('two wraps of the same key differ (fresh randomness per wrap)', async (t) => {
    const rot = await open();
    const id = keyId();
    const kwk = randomBytes(32);
    t.notSame((await rot.wrap(kwk, id)).blob, (await rot.wrap(kwk, id)).blob);
    await rot.stop?.();
  });

  t.test('a probe succeeds while the instance can wrap', async (t) => {
    const rot = await open();
    await rot.probe?.();
    t.pass('probe resolved');
    await rot.stop?.();
  });

  if (reopen) {
    t.test('a key wrapped before a restart unwraps after it', async (t) => {
      const first = await open();
      const id = keyId();
      const kwk = randomBytes(32);
      const wrapped = await first.wrap(kwk, id);
      await first.stop?.();
      const second = await reopen();
      t.same(await second.unwrap(wrapped, id), kwk);
      await second.stop?.();
    });
  }
}
