import t from 'tap';
import { locate } from '../../../plugins/doors/kmip/operations/objects.ts';
import type { KmipCall } from '../../../plugins/doors/kmip/operations/adapter.ts';
import { integer, K, structure } from '../../../plugins/doors/kmip/ttlv/index.ts';

const T = K.Tag;
const PAGE = 1000;

/**
 * A pipeline stand-in whose LocateKeys finds `total` RSA keys (each a private and a public KMIP object), a page at a
 * time.
 */
function callFinding(total: number): KmipCall & { pagesRead: number } {
  const call = {
    version: { major: 1, minor: 4 },
    v2: false,
    placeholder: undefined,
    pagesRead: 0,
    run: async (_operationId: string, input: Record<string, unknown>) => {
      const from = Number(input.cursor ?? 0);
      call.pagesRead++;
      const keys = Array.from({ length: Math.min(PAGE, total - from) }, (_, i) => ({
        id: `00000000-0000-4000-8000-${String(from + i).padStart(12, '0')}`,
        spec: { objectType: 'PrivateKey', algorithm: 'RSA', sizeBits: 2048 },
      }));
      return { keys, ...(from + PAGE < total ? { nextCursor: String(from + PAGE) } : {}) };
    },
  };
  return call as unknown as KmipCall & { pagesRead: number };
}

t.test(
  'Locate answers at most 1,000 identifiers whatever Maximum Items asks: ' +
    'a batch of Locates cannot build a response of hundreds of megabytes',
  async (t) => {
    const call = callFinding(20_000);
    const answer = await locate(structure(T.RequestPayload, [integer(T.MaximumItems, 0x7fffffff)]), call);
    t.equal(answer.payload.length, 1000, 'a thousand identifiers; Offset Items pages on');
    const next = await locate(
      structure(T.RequestPayload, [integer(T.MaximumItems, 0x7fffffff), integer(T.OffsetItems, 1000)]),
      callFinding(20_000),
    );
    t.equal(next.payload.length, 1000, 'the next thousand');
    t.not(next.payload[0], answer.payload[0]);
    const few = await locate(structure(T.RequestPayload, [integer(T.MaximumItems, 3)]), callFinding(20_000));
    t.equal(few.payload.length, 3, 'a smaller Maximum Items is kept');
  },
);
