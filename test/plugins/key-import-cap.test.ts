import { randomUUID } from 'node:crypto';
import t from 'tap';
import type { RootOfTrust, TraceScope } from '../../kernel/index.ts';
import { MemoryJournal } from '../../plugins/journal/memory/memory-journal.ts';
import { KeyImport, MAX_LIVE_IMPORT_TOKENS } from '../../plugins/keys/key-import.ts';
import type { KeyStore } from '../../plugins/keys/key-store.ts';
import { ManualClock } from '../helpers/service.ts';

const AES = { algorithm: 'AES', sizeBits: 256 };

/**
 * KeyImport over a memory journal where `caller` already holds `held` live tokens; `steps` lists the traced steps
 * taken.
 */
async function importer(caller: string, held: number) {
  const clock = new ManualClock();
  const journal = new MemoryJournal();
  const now = clock.now();
  for (let i = 0; i < held; i++) {
    await journal.putImportToken(
      {
        tokenHash: randomUUID(),
        importId: randomUUID(),
        issuedTo: caller,
        keyType: 'AES/256',
        createdAt: now.toISOString(),
        expiresAt: new Date(now.getTime() + 3_600_000).toISOString(),
        sealingKey: { kekId: 'k', blob: Buffer.alloc(1) },
        privateKey: Buffer.alloc(1),
      },
      MAX_LIVE_IMPORT_TOKENS,
    );
  }
  const rootOfTrust = { wrap: async () => ({ kekId: 'k', blob: Buffer.alloc(48) }) } as unknown as RootOfTrust;
  const steps: string[] = [];
  const trace: TraceScope = { child: (name, work) => (steps.push(name), work()) };
  return { keyImport: new KeyImport({} as KeyStore, journal, rootOfTrust, clock), journal, steps, trace };
}

t.test(
  'a caller at the import-token cap is refused before an RSA-3072 key is generated or anything is wrapped',
  async (t) => {
    const { keyImport, steps, trace } = await importer('mallory', MAX_LIVE_IMPORT_TOKENS);
    await t.rejects(keyImport.parameters(AES, 'mallory', trace), {
      code: 'TooManyRequests',
      message: /already holds 100 unspent import tokens/,
    });
    t.same(steps, ['journal.liveImportTokens'], 'only the count of its tokens was read');
  },
);

t.test(
  'of concurrent requests for the last free place, the journal stores ' +
    'one: the other is refused after its key generation',
  async (t) => {
    const { keyImport, journal, trace } = await importer('mallory', MAX_LIVE_IMPORT_TOKENS - 1);
    const results = await Promise.allSettled([
      keyImport.parameters(AES, 'mallory', trace),
      keyImport.parameters(AES, 'mallory', trace),
    ]);
    t.equal(results.filter((r) => r.status === 'fulfilled').length, 1, 'one gets parameters');
    t.match(
      results.find((r) => r.status === 'rejected'),
      { reason: { code: 'TooManyRequests' } },
      'the other 429',
    );
    t.equal(
      await journal.liveImportTokens('mallory', new ManualClock().now().toISOString()),
      MAX_LIVE_IMPORT_TOKENS,
      'the caller holds the cap, no more',
    );
  },
);
