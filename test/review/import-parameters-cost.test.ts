import t from 'tap';
import type { Clock, RootOfTrust, TraceScope } from '../../kernel/index.ts';
import { MemoryJournal } from '../../plugins/journal/memory/memory-journal.ts';
import { KeyImport, MAX_LIVE_IMPORT_TOKENS } from '../../plugins/keys/key-import.ts';
import type { KeyStore } from '../../plugins/keys/key-store.ts';

/**
 * Review of issue 23: import tokens are capped at 100 unspent per caller "because each costs an RSA-3072
 * generation", but the RSA-3072 key pair is generated before the cap is checked. A caller already at the
 * cap still makes the node generate one per request (then gets 429), and the rate limit counts each as
 * one unit of 1000/s: a Human or Service with Create keeps every core (and libuv's thread pool) busy.
 */
t.test('a caller at the import-token cap is refused before any RSA-3072 generation', async (t) => {
  const journal = new MemoryJournal();
  const now = new Date('2026-11-27T12:00:00.000Z');
  for (let i = 0; i < MAX_LIVE_IMPORT_TOKENS; i++) {
    await journal.putImportToken({
      tokenHash: `h${i}`, importId: `i${i}`, issuedTo: 'mallory', keyType: 'AES/256', createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + 3_600_000).toISOString(), sealingKey: { kekId: 'k', blob: Buffer.alloc(1) }, privateKey: Buffer.alloc(1),
    }, MAX_LIVE_IMPORT_TOKENS);
  }
  const rootOfTrust = { wrap: async () => ({ kekId: 'k', blob: Buffer.alloc(48) }) } as unknown as RootOfTrust;
  const clock: Clock = { now: () => now } as Clock;
  const importer = new KeyImport({} as KeyStore, journal, rootOfTrust, clock);
  const steps: string[] = [];
  const trace: TraceScope = { child: (name, work) => { steps.push(name); return work(); } };
  const started = performance.now();
  await t.rejects(importer.parameters({ algorithm: 'AES', sizeBits: 256 }, 'mallory', trace), { code: 'TooManyRequests' });
  t.notOk(steps.includes('import.newWrappingKey'), `no wrapping key made for a refused request (steps: ${steps.join(', ')}; ${(performance.now() - started).toFixed(0)} ms)`);
});
