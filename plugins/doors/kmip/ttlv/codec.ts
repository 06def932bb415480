import { ItemType, TtlvError, TYPE_NAMES, type TtlvItem } from './item.ts';

/** A message larger than this is refused before it is buffered (1 MiB: far above any KMIP key message). */
export const DEFAULT_MAX_MESSAGE_BYTES = 1024 * 1024;
/** KMIP's deepest real messages (2.0 Locate with attributes) nest about 8 structures. */
export const DEFAULT_MAX_DEPTH = 32;

export interface DecodeLimits {
  maxDepth?: number;
}

const HEADER = 8;
const utf8 = new TextDecoder('utf-8', { fatal: true });
const padded = (length: number) => length + ((8 - (length % 8)) % 8);

/** Fixed-length types: the length their header must carry. */
const FIXED_LENGTH: Partial<Record<number, number>> = {
  [ItemType.Integer]: 4,
  [ItemType.Enumeration]: 4,
  [ItemType.Interval]: 4,
  [ItemType.LongInteger]: 8,
  [ItemType.Boolean]: 8,
  [ItemType.DateTime]: 8,
  [ItemType.DateTimeExtended]: 8,
};

/** KMIP tags are 0x42xxxx (the standard's) or 0x54xxxx (extensions). */
const validTagPrefix = (first: number) => first === 0x42 || first === 0x54;

function hex(n: number): string {
  return `0x${n.toString(16).padStart(6, '0')}`;
}

/**
 * Decodes exactly one TTLV item that fills `buf`. Every tag, type, length and padding byte is checked
 * against the bytes left before anything is allocated; nesting is bounded. Throws only TtlvError.
 */
export function decodeTtlv(buf: Buffer, limits: DecodeLimits = {}): TtlvItem {
  const maxDepth = limits.maxDepth ?? DEFAULT_MAX_DEPTH;
  const [item, end] = decodeAt(buf, 0, buf.length, 1, maxDepth);
  if (end !== buf.length) throw new TtlvError(`${buf.length - end} bytes follow the message`);
  return item;
}

function decodeAt(buf: Buffer, offset: number, limit: number, depth: number, maxDepth: number): [TtlvItem, number] {
  if (limit - offset < HEADER) throw new TtlvError(`truncated item header at byte ${offset}`);
  const tag = buf.readUIntBE(offset, 3);
  if (!validTagPrefix(buf[offset]!)) throw new TtlvError(`tag ${hex(tag)} at byte ${offset} is not a KMIP tag`);
  const typeCode = buf[offset + 3]!;
  const type = TYPE_NAMES[typeCode];
  if (!type) throw new TtlvError(`unknown item type 0x${typeCode.toString(16)} for tag ${hex(tag)}`);
  const length = buf.readUInt32BE(offset + 4);
  const fixed = FIXED_LENGTH[typeCode];
  if (fixed !== undefined && length !== fixed)
    throw new TtlvError(`${type} ${hex(tag)} has length ${length}, not ${fixed}`);
  if (typeCode === ItemType.BigInteger && (length === 0 || length % 8 !== 0))
    throw new TtlvError(`BigInteger ${hex(tag)} has length ${length}, not a multiple of 8`);
  if (typeCode === ItemType.Structure && length % 8 !== 0)
    throw new TtlvError(`Structure ${hex(tag)} has length ${length}, not a multiple of 8`);
  const start = offset + HEADER;
  const total = padded(length);
  if (total > limit - start)
    throw new TtlvError(`${type} ${hex(tag)} claims ${length} bytes but ${limit - start} remain`);
  const end = start + total;
  for (let i = start + length; i < end; i++)
    if (buf[i] !== 0) throw new TtlvError(`${type} ${hex(tag)} has non-zero padding`);

  switch (typeCode) {
    case ItemType.Structure: {
      if (depth > maxDepth) throw new TtlvError(`structures nest deeper than ${maxDepth}`);
      const value: TtlvItem[] = [];
      let at = start;
      while (at < start + length) {
        const [c, next] = decodeAt(buf, at, start + length, depth + 1, maxDepth);
        value.push(c);
        at = next;
      }
      return [{ tag, type: 'Structure', value }, end];
    }
    case ItemType.Integer:
      return [{ tag, type: 'Integer', value: buf.readInt32BE(start) }, end];
    case ItemType.Enumeration:
      return [{ tag, type: 'Enumeration', value: buf.readUInt32BE(start) }, end];
    case ItemType.Interval:
      return [{ tag, type: 'Interval', value: buf.readUInt32BE(start) }, end];
    case ItemType.LongInteger:
      return [{ tag, type: 'LongInteger', value: buf.readBigInt64BE(start) }, end];
    case ItemType.DateTime:
      return [{ tag, type: 'DateTime', value: buf.readBigInt64BE(start) }, end];
    case ItemType.DateTimeExtended:
      return [{ tag, type: 'DateTimeExtended', value: buf.readBigInt64BE(start) }, end];
    case ItemType.Boolean: {
      const v = buf.readBigUInt64BE(start);
      if (v > 1n) throw new TtlvError(`Boolean ${hex(tag)} is neither 0 nor 1`);
      return [{ tag, type: 'Boolean', value: v === 1n }, end];
    }
    case ItemType.BigInteger: {
      // Two's complement, big-endian, sign-extended to a multiple of 8 bytes.
      let v = BigInt(`0x${buf.toString('hex', start, start + length)}`);
      if (buf[start]! & 0x80) v -= 1n << BigInt(length * 8);
      return [{ tag, type: 'BigInteger', value: v }, end];
    }
    case ItemType.TextString: {
      let value: string;
      try {
        value = utf8.decode(buf.subarray(start, start + length));
      } catch {
        throw new TtlvError(`TextString ${hex(tag)} is not UTF-8`);
      }
      return [{ tag, type: 'TextString', value }, end];
    }
    default:
      return [{ tag, type: 'ByteString', value: Buffer.from(buf.subarray(start, start + length)) }, end];
  }
}

/** The value bytes of an item (without header or padding), checked so that it encodes as declared. */
function valueBytes(item: TtlvItem): Buffer | undefined {
  switch (item.type) {
    case 'TextString':
      return Buffer.from(item.value, 'utf8');
    case 'ByteString':
      return item.value;
    case 'BigInteger': {
      let v = item.value;
      let n = 8;
      while (v >= 1n << BigInt(n * 8 - 1) || v < -(1n << BigInt(n * 8 - 1))) n += 8;
      if (v < 0n) v += 1n << BigInt(n * 8);
      return Buffer.from(v.toString(16).padStart(n * 2, '0'), 'hex');
    }
    default:
      return undefined;
  }
}

function sizeOf(item: TtlvItem): number {
  if (item.type === 'Structure') return HEADER + item.value.reduce((s, c) => s + sizeOf(c), 0);
  const fixed = FIXED_LENGTH[ItemType[item.type]];
  if (fixed !== undefined) return HEADER + 8;
  return HEADER + padded(valueBytes(item)!.length);
}

/** Encodes one item (and everything in it). Throws TtlvError for a value its type cannot hold. */
export function encodeTtlv(item: TtlvItem): Buffer {
  const out = Buffer.alloc(sizeOf(item));
  const end = encodeAt(item, out, 0);
  if (end !== out.length) throw new TtlvError('internal size mismatch');
  return out;
}

function encodeAt(item: TtlvItem, out: Buffer, offset: number): number {
  if (!Number.isInteger(item.tag) || item.tag < 0 || item.tag > 0xffffff || !validTagPrefix(item.tag >>> 16))
    throw new TtlvError(`tag ${item.tag} is not a KMIP tag`);
  out.writeUIntBE(item.tag, offset, 3);
  out[offset + 3] = ItemType[item.type];
  const start = offset + HEADER;
  const range = (v: number, lo: number, hi: number) => {
    if (!Number.isInteger(v) || v < lo || v > hi) throw new TtlvError(`${item.type} ${hex(item.tag)} cannot hold ${v}`);
  };
  switch (item.type) {
    case 'Structure': {
      let at = start;
      for (const c of item.value) at = encodeAt(c, out, at);
      out.writeUInt32BE(at - start, offset + 4);
      return at;
    }
    case 'Integer':
      range(item.value, -0x80000000, 0x7fffffff);
      out.writeUInt32BE(4, offset + 4);
      out.writeInt32BE(item.value, start);
      return start + 8;
    case 'Enumeration':
    case 'Interval':
      range(item.value, 0, 0xffffffff);
      out.writeUInt32BE(4, offset + 4);
      out.writeUInt32BE(item.value, start);
      return start + 8;
    case 'LongInteger':
    case 'DateTime':
    case 'DateTimeExtended':
      if (item.value < -(1n << 63n) || item.value >= 1n << 63n)
        throw new TtlvError(`${item.type} ${hex(item.tag)} does not fit 64 bits`);
      out.writeUInt32BE(8, offset + 4);
      out.writeBigInt64BE(item.value, start);
      return start + 8;
    case 'Boolean':
      out.writeUInt32BE(8, offset + 4);
      out.writeBigUInt64BE(item.value ? 1n : 0n, start);
      return start + 8;
    default: {
      const value = valueBytes(item)!;
      out.writeUInt32BE(value.length, offset + 4);
      value.copy(out, start);
      return start + padded(value.length);
    }
  }
}
