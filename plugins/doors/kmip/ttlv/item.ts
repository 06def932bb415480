/** TTLV item types (KMIP 1.0-2.0; DateTimeExtended is 2.0's). */
export const ItemType = {
  Structure: 0x01,
  Integer: 0x02,
  LongInteger: 0x03,
  BigInteger: 0x04,
  Enumeration: 0x05,
  Boolean: 0x06,
  TextString: 0x07,
  ByteString: 0x08,
  DateTime: 0x09,
  Interval: 0x0a,
  DateTimeExtended: 0x0b,
} as const;

/** One decoded TTLV item. Integers that fit 32 bits are numbers; 64-bit and big integers are bigints. */
export type TtlvItem =
  | { tag: number; type: 'Structure'; value: TtlvItem[] }
  | { tag: number; type: 'Integer' | 'Enumeration' | 'Interval'; value: number }
  | { tag: number; type: 'LongInteger' | 'BigInteger' | 'DateTimeExtended'; value: bigint }
  /** Seconds since the epoch. */
  | { tag: number; type: 'DateTime'; value: bigint }
  | { tag: number; type: 'Boolean'; value: boolean }
  | { tag: number; type: 'TextString'; value: string }
  | { tag: number; type: 'ByteString'; value: Buffer };

export type TtlvTypeName = TtlvItem['type'];

export const TYPE_NAMES: Record<number, TtlvTypeName> = Object.fromEntries(
  Object.entries(ItemType).map(([name, code]) => [code, name as TtlvTypeName]),
);

/** Why the codec refused bytes or a value: the only error it throws. */
export class TtlvError extends Error {
  override readonly name = 'TtlvError';
}

// Builders: what the server writes reads like the structure it sends.
export const structure = (tag: number, value: Array<TtlvItem | undefined>): TtlvItem => ({
  tag,
  type: 'Structure',
  value: value.filter((v): v is TtlvItem => v !== undefined),
});
export const integer = (tag: number, value: number): TtlvItem => ({ tag, type: 'Integer', value });
export const enumeration = (tag: number, value: number): TtlvItem => ({ tag, type: 'Enumeration', value });
export const longInteger = (tag: number, value: bigint): TtlvItem => ({ tag, type: 'LongInteger', value });
export const bigInteger = (tag: number, value: bigint): TtlvItem => ({ tag, type: 'BigInteger', value });
export const boolean = (tag: number, value: boolean): TtlvItem => ({ tag, type: 'Boolean', value });
export const text = (tag: number, value: string): TtlvItem => ({ tag, type: 'TextString', value });
export const bytes = (tag: number, value: Buffer): TtlvItem => ({ tag, type: 'ByteString', value });
export const dateTime = (tag: number, value: Date): TtlvItem => ({
  tag,
  type: 'DateTime',
  value: BigInt(Math.floor(value.getTime() / 1000)),
});
export const interval = (tag: number, value: number): TtlvItem => ({ tag, type: 'Interval', value });

/** The first child of a structure with this tag. */
export function child(item: TtlvItem | undefined, tag: number): TtlvItem | undefined {
  return item?.type === 'Structure' ? item.value.find((c) => c.tag === tag) : undefined;
}

/** Every child of a structure with this tag, in order. */
export function children(item: TtlvItem | undefined, tag: number): TtlvItem[] {
  return item?.type === 'Structure' ? item.value.filter((c) => c.tag === tag) : [];
}
