import { statSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import plugin from '../../plugins/root-of-trust/local/index.ts';
import { LocalRootOfTrust } from '../../plugins/root-of-trust/local/local-root-of-trust.ts';
import { tempDir } from '../helpers/service.ts';
import type { Deployment } from '../../kernel/index.ts';

const settings = (localKek = '') => ({
  crypto: {
    localKek,
    previousKeks: '',
  },
  rdbEmbedded: { jdbcUrl: 'jdbc:sqlite:/var/lib/svc/journal.db' },
});
const deployment = (journalKind: string): Deployment => ({
  nodeId: 'n1',
  dataDir: 'data',
  workers: 1,
  http: { host: '127.0.0.1', maxBodyBytes: 1048576 },
  kinds: {
    journal: journalKind,
    crypto: 'in-memory',
    auth: 'dev',
    policy: 'dev',
    revocation: 'in-memory',
    audit: 'stdout',
  },
  hmacSecret: '',
});
const config = (journalKind: string, localKek = '') => plugin.configure!(settings(localKek), deployment(journalKind));

t.test('a server journal without SVC_CRYPTO_LOCAL_KEK fails preflight saying why', async (t) => {
  const nodes = plugin.preflight!(config('rdb-server-1'), { exposed: false });
  const kek = nodes.find((n) => n.name === 'crypto.localKek');
  t.equal(kek?.status, 'fail');
  t.match(kek?.message, /keys would be unreadable after a restart/);
});

t.test('the KEK source follows the journal kind', async (t) => {
  t.same(config('in-memory'), { source: { kind: 'ephemeral' }, previous: [] });
  t.same(config('rdb-embedded'), { source: { kind: 'file', file: '/var/lib/svc/kek.key' }, previous: [] });
  t.equal(config('rdb-server-1', Buffer.alloc(32).toString('base64')).source.kind, 'configured');
  const short = plugin.preflight!(config('in-memory', Buffer.alloc(16).toString('base64')), { exposed: false });
  t.equal(short.find((n) => n.name === 'crypto.localKek')?.status, 'fail');
});

t.test('the KEK file is created once with mode 0600 and reused', async (t) => {
  const file = path.join(tempDir(), 'sub', 'kek.key');
  const first = new LocalRootOfTrust({ kind: 'file', file });
  await first.start();
  const wrapped = await first.wrap(Buffer.alloc(32, 3), 'key-1');
  t.equal(statSync(file).mode & 0o777, 0o600);
  const second = new LocalRootOfTrust({ kind: 'file', file });
  await second.start();
  t.equal(second.currentKekId(), first.currentKekId(), 'the same KEK, so the same id');
  t.same(await second.unwrap(wrapped, 'key-1'), Buffer.alloc(32, 3));
});

t.test(
  'previous KEKs unwrap what they wrapped; new wraps use the current one; ids reveal nothing of the KEK',
  async (t) => {
    const oldKek = Buffer.alloc(32, 1).toString('base64');
    const newKek = Buffer.alloc(32, 2).toString('base64');
    const before = new LocalRootOfTrust({ kind: 'configured', kekBase64: oldKek });
    await before.start();
    const wrapped = await before.wrap(Buffer.alloc(32, 9), 'key-1');
    const after = new LocalRootOfTrust({ kind: 'configured', kekBase64: newKek }, [oldKek]);
    await after.start();
    t.same(after.kekIds(), [after.currentKekId(), before.currentKekId()]);
    t.same(await after.unwrap(wrapped, 'key-1'), Buffer.alloc(32, 9));
    t.equal((await after.wrap(Buffer.alloc(32, 9), 'key-1')).kekId, after.currentKekId());
    t.match(after.currentKekId(), /^local:[0-9a-f]{16}$/);
    t.notMatch(after.currentKekId(), new RegExp(Buffer.alloc(32, 2).toString('hex').slice(0, 8)));
    const without = new LocalRootOfTrust({ kind: 'configured', kekBase64: newKek });
    await without.start();
    await t.rejects(
      without.unwrap(wrapped, 'key-1'),
      /not configured/,
      'once the previous KEK is dropped, what it wrapped is unreadable',
    );
  },
);
