import { execFile } from 'node:child_process';
import path from 'node:path';
import t from 'tap';
import { OPERATIONS } from '../../kernel/model/operation.ts';
import { ApiClient } from '../helpers/client.ts';
import { startFaultProxy } from '../helpers/fault-proxy.ts';
import { startTestService } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * The Java SDK's JUnit 5 suite (clients/java/src/test) against two real services started here: one with
 * HMAC tokens and a queryable audit sink, one in development mode. clients/java/test.sh builds the jar
 * and the tests with javac (installing the JDK, Jackson and JUnit 5 from Debian when missing).
 */
t.test('the Java SDK passes its JUnit 5 suite against a real service', async (t) => {
  const secured = await startTestService({ SVC_AUTH_KIND: 'hmac', SVC_AUTH_HMAC_SECRET: TEST_SECRET });
  t.teardown(() => secured.stop());
  const dev = await startTestService();
  t.teardown(() => dev.stop());
  // KeyModelTest and PolicyTest: role-based policy (GET and PUT /v1/policy serve only it), with a Human and
  // a Service bound to every operation; the risk gate off, as the agent's calls there are about key patterns.
  const model = await startTestService({
    SVC_AUTH_KIND: 'hmac',
    SVC_AUTH_HMAC_SECRET: TEST_SECRET,
    SVC_RISK_ENABLED: 'false',
    SVC_POLICY_KIND: 'role-based',
    SVC_POLICY_ROLE_BINDINGS: JSON.stringify({ admins: [...OPERATIONS] }),
  });
  t.teardown(() => model.stop());
  // StalledAnswerTest reads two keys through a proxy whose answers stall after the first byte: once for
  // one key (the retry succeeds), on every attempt for the other (the client gives up with Timeout).
  const proxy = await startFaultProxy(secured.url);
  t.teardown(() => proxy.close());
  const token = await mintToken({ sub: 'alice', svc_kind: 'human' }, { ttlSeconds: 3600 });
  const alice = new ApiClient(secured.url, { Authorization: `Bearer ${token}` });
  const [stalledOnce, stalled] = [await alice.key({ algorithm: 'AES' }), await alice.key({ algorithm: 'AES' })];
  proxy.inject(new RegExp(`^GET /v1/keys/${stalledOnce}$`), 'stall-body', 1);
  proxy.inject(new RegExp(`^GET /v1/keys/${stalled}$`), 'stall-body', 100);
  const env = {
    ...process.env,
    SVC_TEST_URL: secured.url,
    SVC_TEST_TOKEN: token,
    SVC_TEST_DEV_URL: dev.url,
    SVC_TEST_FAULT_URL: proxy.url,
    SVC_TEST_STALLED_ONCE_KEY: stalledOnce,
    SVC_TEST_STALLED_KEY: stalled,
    SVC_TEST_MODEL_URL: model.url,
    SVC_TEST_MODEL_TOKEN: await mintToken({ sub: 'alice', svc_groups: ['admins'] }, { ttlSeconds: 3600 }),
    SVC_TEST_MODEL_SERVICE_TOKEN: await mintToken(
      { sub: 'deployer', svc_kind: 'service', svc_groups: ['admins'] },
      { ttlSeconds: 3600 },
    ),
  };
  const run = await new Promise<{ code: number; out: string }>((resolve) => {
    execFile(
      'bash',
      [path.join(ROOT, 'clients/java/test.sh')],
      { env, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out: `${stdout}\n${stderr}` });
      },
    );
  });
  t.equal(run.code, 0, run.code === 0 ? 'JUnit exits 0' : run.out);
  const succeeded = Number(/\[\s*(\d+) tests successful\s*\]/.exec(run.out)?.[1] ?? 0);
  const failed = Number(/\[\s*(\d+) tests failed\s*\]/.exec(run.out)?.[1] ?? -1);
  t.equal(failed, 0, 'no JUnit test failed');
  t.ok(succeeded >= 15, `every JUnit test ran and passed (${succeeded})`);
  t.equal(proxy.seen.filter((l) => l === `GET /v1/keys/${stalledOnce}`).length, 2, 'the stalled read was retried once');
  t.equal(
    proxy.seen.filter((l) => l === `GET /v1/keys/${stalled}`).length,
    4,
    'the always-stalled read: the first attempt and three retries',
  );
});
