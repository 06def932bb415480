import t from 'tap';
import type { Test } from 'tap';
import { decodeTtlv, encodeTtlv, Framer, TtlvError, type TtlvItem } from '../../../plugins/doors/kmip/ttlv/index.ts';
import { Prng } from '../../helpers/fuzz/prng.ts';

const TYPES = [
  'Structure',
  'Integer',
  'LongInteger',
  'BigInteger',
  'Enumeration',
  'Boolean',
  'TextString',
  'ByteString',
  'DateTime',
  'Interval',
] as const;

/** A random well-formed item, as a client might send. */
function randomItem(rng: Prng, depth: number): TtlvItem {
  const tag = 0x420000 + rng.int(1, 0x150);
  const type = depth > 4 ? rng.pick(TYPES.slice(1)) : rng.pick(TYPES);
  switch (type) {
    case 'Structure':
      return { tag, type, value: Array.from({ length: rng.int(0, 4) }, () => randomItem(rng, depth + 1)) };
    case 'Integer':
      return { tag, type, value: rng.int(-1000, 1000) };
    case 'Enumeration':
    case 'Interval':
      return { tag, type, value: rng.int(0, 2 ** 31) };
    case 'LongInteger':
    case 'DateTime':
      return { tag, type, value: BigInt(rng.int(-(2 ** 40), 2 ** 40)) };
    case 'BigInteger':
      return { tag, type, value: BigInt(rng.int(0, 2 ** 30)) ** BigInt(rng.int(1, 6)) };
    case 'Boolean':
      return { tag, type, value: rng.chance(0.5) };
    case 'TextString':
      return { tag, type, value: 'x'.repeat(rng.int(0, 40)) };
    default:
      return { tag, type: 'ByteString', value: Buffer.alloc(rng.int(0, 40), rng.int(0, 255)) };
  }
}

/** Items and bytes a decoded value holds: never more than the message's own length allows. */
function footprint(item: TtlvItem): { items: number; bytes: number } {
  if (item.type === 'Structure')
    return item.value
      .map(footprint)
      .reduce((a, b) => ({ items: a.items + b.items, bytes: a.bytes + b.bytes }), { items: 1, bytes: 0 });
  if (item.type === 'ByteString') return { items: 1, bytes: item.value.length };
  if (item.type === 'TextString') return { items: 1, bytes: Buffer.byteLength(item.value) };
  return { items: 1, bytes: 0 };
}

/** Decodes hostile bytes: only a TtlvError may come out, and what is decoded is bounded by the input. */
function decodeHostile(t: Test, bytes: Buffer, what: string): void {
  try {
    const item = decodeTtlv(bytes);
    const f = footprint(item);
    if (f.items > bytes.length / 8 || f.bytes > bytes.length) t.fail(`${what}: decoded more than the input holds`);
  } catch (err) {
    if (!(err instanceof TtlvError)) t.fail(`${what}: threw ${String(err)}`);
  }
}

function mutate(rng: Prng, valid: Buffer): Buffer {
  const b = Buffer.from(valid);
  switch (rng.int(0, 4)) {
    case 0: // flip bits
      for (let i = rng.int(1, 4); i > 0; i--) b[rng.int(0, b.length - 1)]! ^= 1 << rng.int(0, 7);
      return b;
    case 1: {
      // a length that lies: rewrite some item header's length field
      const at = rng.int(0, Math.max(0, Math.floor(b.length / 8) - 1)) * 8;
      if (at + 8 <= b.length) b.writeUInt32BE(rng.pick([0, 1, 7, 8, 0xffffffff, 0x7fffffff, rng.int(0, 4096)]), at + 4);
      return b;
    }
    case 2:
      return b.subarray(0, rng.int(0, b.length - 1)); // truncated
    case 3:
      return Buffer.concat([b, Buffer.alloc(rng.int(1, 16), rng.int(0, 255))]); // trailing bytes
    default: // a random type byte
      b[Math.min(b.length - 1, rng.int(0, Math.floor(b.length / 8)) * 8 + 3)] = rng.int(0, 255);
      return b;
  }
}

t.test(
  'fuzz: random, mutated, truncated and lying messages give values or TtlvError, bounded by their input',
  async (t) => {
    const rng = new Prng(0x4b4d4950);
    let decoded = 0;
    for (let i = 0; i < 20_000; i++) {
      const valid = encodeTtlv({ tag: 0x420078, type: 'Structure', value: [randomItem(rng, 1)] });
      if (!encodeTtlv(decodeTtlv(valid)).equals(valid)) t.fail(`round trip ${i}`);
      decodeHostile(t, mutate(rng, valid), `mutation ${i}`);
      const noise = Buffer.alloc(rng.int(0, 256));
      for (let j = 0; j < noise.length; j++) noise[j] = rng.int(0, 255);
      if (rng.chance(0.5) && noise.length >= 4) noise[0] = 0x42; // get past the tag check more often
      decodeHostile(t, noise, `noise ${i}`);
      decoded++;
    }
    t.equal(decoded, 20_000);
  },
);

t.test('fuzz: nesting far past the bound is refused without exhausting the stack', async (t) => {
  for (const depth of [33, 1000, 100_000]) {
    const bytes = Buffer.alloc(depth * 8);
    for (let i = 0; i < depth; i++) {
      bytes.writeUIntBE(0x420001, i * 8, 3);
      bytes[i * 8 + 3] = 0x01;
      bytes.writeUInt32BE((depth - i - 1) * 8, i * 8 + 4);
    }
    t.throws(() => decodeTtlv(bytes), { name: 'TtlvError', message: /nest deeper/ }, `${depth} levels`);
  }
});

t.test('fuzz: the framer holds at most one bounded message and refuses lying headers', async (t) => {
  const rng = new Prng(7);
  for (let i = 0; i < 2_000; i++) {
    const framer = new Framer(4096);
    const stream = Buffer.concat(
      Array.from({ length: rng.int(1, 4) }, () => {
        const valid = encodeTtlv({ tag: 0x420078, type: 'Structure', value: [randomItem(rng, 1)] });
        return rng.chance(0.3) ? mutate(rng, valid) : valid;
      }),
    );
    try {
      let at = 0;
      while (at < stream.length) {
        const step = rng.int(1, 64);
        for (const frame of framer.push(stream.subarray(at, at + step))) {
          if (frame.length > 4096) t.fail('a frame over the bound');
          decodeHostile(t, frame, `frame ${i}`);
        }
        at += step;
        if (framer.pending > 4096 + 64) t.fail('the framer holds more than one bounded message');
      }
    } catch (err) {
      if (!(err instanceof TtlvError)) t.fail(`framer threw ${String(err)}`);
    }
  }
  t.pass('no frame over the bound, nothing but TtlvError');
});
