import t from 'tap';
import { buildContainer } from '../../kernel/container.ts';
import {
  definePlugin,
  KERNEL_API_VERSION,
  previousKeksPort,
  type RootOfTrust,
  rootOfTrustPort,
  systemClock,
} from '../../kernel/index.ts';
import type { Deployment } from '../../kernel/settings/deployment.ts';

// A root of trust of a made-up kind: it "wraps" by tagging the blob with its one KEK id.
const fakeRoot = (kek: string): RootOfTrust => ({
  name: kek,
  currentKekId: () => kek,
  kekIds: () => [kek],
  wrap: async (kwk) => ({ kekId: kek, blob: Buffer.concat([Buffer.from(`${kek}:`), kwk]) }),
  unwrap: async (wrapped) => {
    if (wrapped.kekId !== kek) throw new Error(`${kek} cannot unwrap under ${wrapped.kekId}`);
    return wrapped.blob.subarray(kek.length + 1);
  },
});

const deployment: Deployment = {
  nodeId: 'n',
  dataDir: 'data',
  workers: 1,
  http: { host: '127.0.0.1', maxBodyBytes: 1024 },
  kinds: {},
  hmacSecret: '',
};
const logger = { trace() {}, debug() {}, info() {}, warn() {}, error() {}, fatal() {}, child: () => logger };
const current = definePlugin({
  id: 'root-new',
  apiVersion: KERNEL_API_VERSION,
  provides: rootOfTrustPort,
  kind: 'new',
  description: 'the chosen root of trust',
  create: () => fakeRoot('new-kek'),
});
const previous = definePlugin({
  id: 'root-old-previous',
  apiVersion: KERNEL_API_VERSION,
  provides: previousKeksPort,
  description: 'an earlier kind',
  create: () => fakeRoot('old-kek'),
});

t.test("the kernel puts every kind's previous KEKs behind the chosen root of trust", async (t) => {
  const old = await fakeRoot('old-kek').wrap(Buffer.from('kwk-1'), 'key-1');
  const { container } = buildContainer([current, previous], {}, {}, deployment, logger as never, systemClock);
  const root = container.resolve<RootOfTrust>(rootOfTrustPort.id);
  t.equal(root.currentKekId(), 'new-kek', 'new wraps use the chosen kind');
  t.same(root.kekIds(), ['new-kek', 'old-kek']);
  t.same(await root.unwrap(old, 'key-1'), Buffer.from('kwk-1'), 'a key under the earlier kind still unwraps');
  t.equal((await root.wrap(Buffer.from('kwk-2'), 'key-2')).kekId, 'new-kek');
});

t.test('without previous KEKs the chosen root of trust is used as it is', async (t) => {
  const { container, wired } = buildContainer([current], {}, {}, deployment, logger as never, systemClock);
  t.equal(container.resolve(rootOfTrustPort.id), wired[0]!.instance);
});
