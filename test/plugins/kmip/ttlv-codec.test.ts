import t from 'tap';
import {
  decodeTtlv,
  encodeTtlv,
  Framer,
  frameLength,
  TtlvError,
  type TtlvItem,
} from '../../../plugins/doors/kmip/ttlv/index.ts';

const hex = (s: string) => Buffer.from(s.replace(/[\s|]/g, ''), 'hex');

// The encoding examples of the KMIP 1.0 specification (section 9.1.2), byte for byte.
const SPEC_VECTORS: Array<[string, TtlvItem, string]> = [
  ['Integer 8', { tag: 0x420020, type: 'Integer', value: 8 }, '420020 | 02 | 00000004 | 00000008 00000000'],
  [
    'Long Integer 123456789000000000',
    { tag: 0x420020, type: 'LongInteger', value: 123456789000000000n },
    '420020 | 03 | 00000008 | 01B69B4BA5749200',
  ],
  [
    'Big Integer 1234567890000000000000000000',
    { tag: 0x420020, type: 'BigInteger', value: 1234567890000000000000000000n },
    '420020 | 04 | 00000010 | 0000000003FD35EB6BC2DF4618080000',
  ],
  ['Enumeration 255', { tag: 0x420020, type: 'Enumeration', value: 255 }, '420020 | 05 | 00000004 | 000000FF 00000000'],
  ['Boolean True', { tag: 0x420020, type: 'Boolean', value: true }, '420020 | 06 | 00000008 | 0000000000000001'],
  [
    'Text String "Hello World"',
    { tag: 0x420020, type: 'TextString', value: 'Hello World' },
    '420020 | 07 | 0000000B | 48656C6C6F20576F726C64 0000000000',
  ],
  [
    'Byte String 01 02 03',
    { tag: 0x420020, type: 'ByteString', value: Buffer.from([1, 2, 3]) },
    '420020 | 08 | 00000003 | 010203 0000000000',
  ],
  [
    'Date-Time 2008-03-14T11:56:40Z',
    { tag: 0x420020, type: 'DateTime', value: BigInt(Date.UTC(2008, 2, 14, 11, 56, 40) / 1000) },
    '420020 | 09 | 00000008 | 0000000047DA67F8',
  ],
  [
    'Interval 10 days',
    { tag: 0x420020, type: 'Interval', value: 864000 },
    '420020 | 0A | 00000004 | 000D2F00 00000000',
  ],
  [
    'Structure of an Enumeration 254 and an Integer 255',
    {
      tag: 0x420020,
      type: 'Structure',
      value: [
        { tag: 0x420004, type: 'Enumeration', value: 254 },
        { tag: 0x420005, type: 'Integer', value: 255 },
      ],
    },
    '420020 | 01 | 00000020 | 420004 | 05 | 00000004 | 000000FE 00000000 | 420005 | 02 | 00000004 | 000000FF 00000000',
  ],
];

t.test("the specification's encoding examples encode and decode byte for byte", async (t) => {
  for (const [name, item, bytes] of SPEC_VECTORS) {
    t.same(encodeTtlv(item).toString('hex'), hex(bytes).toString('hex'), `${name}: encoded`);
    t.same(decodeTtlv(hex(bytes)), item, `${name}: decoded`);
  }
});

t.test('negative and wide integers round-trip', async (t) => {
  for (const value of [-1n, -128n, 2n ** 64n, -(2n ** 64n), 2n ** 63n - 1n, -(2n ** 63n)]) {
    const item: TtlvItem = { tag: 0x420020, type: 'BigInteger', value };
    t.same(decodeTtlv(encodeTtlv(item)), item, `BigInteger ${value}`);
  }
  t.same(decodeTtlv(encodeTtlv({ tag: 0x420020, type: 'Integer', value: -5 })), {
    tag: 0x420020,
    type: 'Integer',
    value: -5,
  });
  t.same(decodeTtlv(encodeTtlv({ tag: 0x420020, type: 'TextString', value: 'ünïcode €' })), {
    tag: 0x420020,
    type: 'TextString',
    value: 'ünïcode €',
  });
  t.same(decodeTtlv(encodeTtlv({ tag: 0x420020, type: 'DateTimeExtended', value: 1_700_000_000_000_000n })), {
    tag: 0x420020,
    type: 'DateTimeExtended',
    value: 1_700_000_000_000_000n,
  });
});

t.test('strict decoding refuses what the specification does not allow', async (t) => {
  const refused: Array<[string, string, RegExp]> = [
    ['a truncated header', '420020 02 0000', /truncated item header/],
    ['a tag outside 0x42/0x54', '430020 | 02 | 00000004 | 00000008 00000000', /not a KMIP tag/],
    ['an unknown type', '420020 | 0C | 00000004 | 00000008 00000000', /unknown item type/],
    ['an Integer of length 8', '420020 | 02 | 00000008 | 00000008 00000000', /length 8, not 4/],
    ['a Boolean of 2', '420020 | 06 | 00000008 | 0000000000000002', /neither 0 nor 1/],
    ['non-zero padding', '420020 | 05 | 00000004 | 000000FF 00000001', /non-zero padding/],
    ['text that is not UTF-8', '420020 | 07 | 00000002 | C328 000000000000', /not UTF-8/],
    ['a length longer than the bytes', '420020 | 08 | 00001000 | 0102030000000000', /claims 4096 bytes but 8 remain/],
    [
      'a child that overruns its structure',
      '420020 | 01 | 00000008 | 420004 | 05 | 00000004 | 000000FE 00000000',
      /Enumeration 0x420004 claims 4 bytes but 0 remain/,
    ],
    [
      'a structure length that is not a multiple of 8',
      '420020 | 01 | 00000004 | 00000000 00000000',
      /not a multiple of 8/,
    ],
    ['a BigInteger of length 0', '420020 | 04 | 00000000', /not a multiple of 8/],
    ['bytes after the message', '420020 | 02 | 00000004 | 00000008 00000000 | 00', /1 bytes follow/],
  ];
  for (const [what, bytes, message] of refused)
    t.throws(() => decodeTtlv(hex(bytes)), { name: 'TtlvError', message }, what);
});

t.test('nesting is bounded', async (t) => {
  let item: TtlvItem = { tag: 0x420020, type: 'Integer', value: 1 };
  for (let i = 0; i < 40; i++) item = { tag: 0x420020, type: 'Structure', value: [item] };
  const bytes = encodeTtlv(item);
  t.throws(() => decodeTtlv(bytes), { name: 'TtlvError', message: /nest deeper than 32/ });
  t.ok(decodeTtlv(bytes, { maxDepth: 64 }), 'a higher bound lets it through');
});

t.test('encoding refuses values the type cannot hold', async (t) => {
  t.throws(() => encodeTtlv({ tag: 0x420020, type: 'Integer', value: 2 ** 31 }), TtlvError);
  t.throws(() => encodeTtlv({ tag: 0x420020, type: 'Enumeration', value: -1 }), TtlvError);
  t.throws(() => encodeTtlv({ tag: 0x120020, type: 'Integer', value: 1 }), TtlvError);
  t.throws(() => encodeTtlv({ tag: 0x420020, type: 'LongInteger', value: 2n ** 63n }), TtlvError);
});

t.test('framing reads the header only, and refuses an over-size message before buffering it', async (t) => {
  const message = encodeTtlv(SPEC_VECTORS.at(-1)![1]);
  const framer = new Framer(1024);
  const frames: Buffer[] = [];
  for (const b of Buffer.concat([message, message])) frames.push(...framer.push(Buffer.from([b])));
  t.same(
    frames.map((f) => f.toString('hex')),
    [message.toString('hex'), message.toString('hex')],
    'one byte at a time still makes two whole messages',
  );
  t.equal(framer.pending, 0);
  t.throws(
    () => new Framer(1024).push(hex('420078 | 01 | 00100000')),
    { name: 'TtlvError', message: /claims 1048584 bytes; at most 1024/ },
    'refused on its 8-byte header',
  );
  t.throws(() => frameLength(hex('420078 | 07 | 00000008')), { message: /is a structure/ });
  t.throws(() => frameLength(hex('000000 | 01 | 00000008')), { message: /KMIP tag/ });
});
