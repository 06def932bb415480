import { randomBytes } from 'node:crypto';
import t from 'tap';
import { type AccessKeyStore, type RootOfTrust, SvcError, type WrappedKey } from '../../kernel/index.ts';
import { newAccessKeyId } from '../../plugins/access-keys/access-key-material.ts';
import { AccessKeyResolver, SECRET_CACHE_ENTRIES } from '../../plugins/access-keys/access-key-resolver.ts';
import { MemoryJournal } from '../../plugins/journal/memory/memory-journal.ts';

// The resolver a Signature Version 4 door calls at every request: the journal is read each time (a delete
// on any node counts at once), while the unwrap, a network call on a cloud root of trust, happens once per
// key and seal. A counting stand-in root of trust seals by XOR with a pad bound to the key id.

class CountingRoot {
  unwraps = 0;
  failNext: SvcError | undefined;
  readonly name = 'counting';
  private readonly pad = randomBytes(32);
  currentKekId = () => 'kek-1';
  kekIds = () => ['kek-1', 'kek-2'];
  async wrap(secret: Buffer, keyId: string, kekId = 'kek-1'): Promise<WrappedKey> {
    return { kekId, blob: this.xor(secret, keyId) };
  }
  async unwrap(wrapped: WrappedKey, keyId: string): Promise<Buffer> {
    this.unwraps++;
    // Slow enough that concurrent first uses overlap.
    await new Promise((resolve) => setImmediate(resolve));
    const failure = this.failNext;
    this.failNext = undefined;
    if (failure) throw failure;
    return this.xor(wrapped.blob, keyId);
  }
  private xor(bytes: Buffer, keyId: string): Buffer {
    const id = Buffer.from(keyId.padEnd(32, '.'));
    return Buffer.from(bytes.map((b, i) => b ^ this.pad[i]! ^ id[i]!));
  }
}

function setUp() {
  const store = new MemoryJournal().accessKeys;
  let reads = 0;
  const counted: AccessKeyStore = {
    create: (r, o) => store.create(r, o),
    get: (id) => {
      reads++;
      return store.get(id);
    },
    list: (f) => store.list(f),
    remove: (id, a) => store.remove(id, a),
  };
  const root = new CountingRoot();
  const resolver = new AccessKeyResolver(counted, root as unknown as RootOfTrust);
  const add = async (kekId = 'kek-1', accessKeyId = newAccessKeyId()) => {
    const secret = randomBytes(32);
    await store.create({
      accessKeyId,
      principal: { kind: 'Service', subject: 'billing-app', groups: [] },
      sealedSecret: await root.wrap(secret, accessKeyId, kekId),
      createdAt: '2026-01-01T00:00:00.000Z',
      createdBy: 'alice',
    });
    return { accessKeyId, secret: secret.toString('base64url') };
  };
  return { store, resolver, root, add, reads: () => reads };
}

t.test('the store is read at every call, the secret unwrapped once per key', async (t) => {
  const { resolver, root, add, reads } = setUp();
  const key = await add();
  for (let i = 0; i < 3; i++)
    t.same(await resolver.resolve(key.accessKeyId), {
      principal: { kind: 'Service', subject: 'billing-app', groups: [] },
      secret: key.secret,
    });
  t.equal(reads(), 3, 'three reads of the journal');
  t.equal(root.unwraps, 1, 'one unwrap');

  const fresh = await add();
  const all = await Promise.all(Array.from({ length: 5 }, () => resolver.resolve(fresh.accessKeyId)));
  t.ok(
    all.every((r) => r?.secret === fresh.secret),
    'concurrent first uses all get the secret',
  );
  t.equal(root.unwraps, 2, '...from one unwrap between them');
});

t.test('text that is no access key id answers nothing, without reading the journal', async (t) => {
  const { resolver, reads } = setUp();
  for (const id of [
    '',
    'AKIAIOSFODNN7EXAMPLE',
    'aksvaaaaaaaaaaaaaaaa',
    'AKSV0000000000000000',
    `AKSV${'A'.repeat(17)}`,
  ])
    t.equal(await resolver.resolve(id), undefined, JSON.stringify(id));
  t.equal(reads(), 0);
});

t.test('a deleted key resolves to nothing at once; one sealed again is unwrapped again', async (t) => {
  const { store, resolver, root, add } = setUp();
  const key = await add();
  t.equal((await resolver.resolve(key.accessKeyId))?.secret, key.secret);
  t.ok(await store.remove(key.accessKeyId), 'deleted, as another node would');
  t.equal(await resolver.resolve(key.accessKeyId), undefined, 'refused at the next call');

  // The same id stored again under another KEK (a restore, a re-seal): the cached secret is not used.
  const again = await add('kek-2', key.accessKeyId);
  const before = root.unwraps;
  t.equal((await resolver.resolve(key.accessKeyId))?.secret, again.secret);
  t.equal(root.unwraps, before + 1, 'a new seal is opened again');
});

t.test('a failed unwrap is not kept: the next call tries again', async (t) => {
  const { resolver, root, add } = setUp();
  const key = await add();
  root.failNext = new SvcError('ServiceUnavailable', 'the root of trust is unreachable; retry later');
  await t.rejects(resolver.resolve(key.accessKeyId), { code: 'ServiceUnavailable' }, 'the door can answer 503');
  t.equal((await resolver.resolve(key.accessKeyId))?.secret, key.secret, 'then it resolves');
  t.equal(root.unwraps, 2);
});

t.test(`at most ${SECRET_CACHE_ENTRIES} secrets are kept: the least recently used is opened again`, async (t) => {
  const { resolver, root, add } = setUp();
  const keys = [];
  for (let i = 0; i <= SECRET_CACHE_ENTRIES; i++) keys.push(await add());
  for (const key of keys) await resolver.resolve(key.accessKeyId);
  t.equal(root.unwraps, SECRET_CACHE_ENTRIES + 1);
  await resolver.resolve(keys.at(-1)!.accessKeyId);
  t.equal(root.unwraps, SECRET_CACHE_ENTRIES + 1, 'a recent key is still kept');
  t.equal((await resolver.resolve(keys[0]!.accessKeyId))?.secret, keys[0]!.secret);
  t.equal(root.unwraps, SECRET_CACHE_ENTRIES + 2, 'the oldest was dropped and is opened again');
});
