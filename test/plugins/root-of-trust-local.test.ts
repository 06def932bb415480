import { statSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import plugin from '../../plugins/root-of-trust/local/index.ts';
import { LocalRootOfTrust } from '../../plugins/root-of-trust/local/local-root-of-trust.ts';
import { tempDir } from '../helpers/service.ts';

const config = (journalKind: string, localKek = '') => ({ crypto: { localKek }, journal: { kind: journalKind }, rdbEmbedded: { jdbcUrl: 'jdbc:sqlite:/var/lib/svc/journal.db' } });

t.test('a server journal without SVC_CRYPTO_LOCAL_KEK fails preflight saying why', async (t) => {
  const nodes = plugin.preflight!(plugin.configSlice!(config('rdb-server-1')), { exposed: false });
  const kek = nodes.find((n) => n.name === 'crypto.localKek');
  t.equal(kek?.status, 'fail');
  t.match(kek?.message, /keys would be unreadable after a restart/);
});

t.test('the KEK source follows the journal kind', async (t) => {
  t.same(plugin.configSlice!(config('in-memory')), { source: { kind: 'ephemeral' } });
  t.same(plugin.configSlice!(config('rdb-embedded')), { source: { kind: 'file', file: '/var/lib/svc/kek.key' } });
  t.equal(plugin.configSlice!(config('rdb-server-1', Buffer.alloc(32).toString('base64'))).source.kind, 'configured');
  const short = plugin.preflight!(plugin.configSlice!(config('in-memory', Buffer.alloc(16).toString('base64'))), { exposed: false });
  t.equal(short.find((n) => n.name === 'crypto.localKek')?.status, 'fail');
});

t.test('the KEK file is created once with mode 0600 and reused', async (t) => {
  const file = path.join(tempDir(), 'sub', 'kek.key');
  const first = new LocalRootOfTrust({ kind: 'file', file });
  await first.start();
  const wrapped = await first.wrap(Buffer.from('material'), 'key-1/m1');
  t.equal(statSync(file).mode & 0o777, 0o600);
  const second = new LocalRootOfTrust({ kind: 'file', file });
  await second.start();
  t.same(await second.unwrap(wrapped, 'key-1/m1'), Buffer.from('material'));
  await t.rejects(second.unwrap(wrapped, 'key-2/m1'), 'bound to its key and material id');
  const tampered = Buffer.from(wrapped);
  tampered[tampered.length - 1]! ^= 1;
  await t.rejects(second.unwrap(tampered, 'key-1/m1'));
});
