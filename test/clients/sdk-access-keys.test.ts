import t from 'tap';
import { SvcApiError, SvcClient } from '../../clients/sdk/index.ts';
import { type AccessKeyCredentials, accessKeyCredentialsPort } from '../../kernel/index.ts';
import { startTestService } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

// The SDK's access key calls against a real service with HMAC tokens, so that a Service can be refused.
const service = await startTestService({ SVC_AUTH_KIND: 'hmac', SVC_AUTH_HMAC_SECRET: TEST_SECRET });
t.teardown(() => service.stop());
const client = async (claims: Record<string, unknown>) =>
  new SvcClient({ server: service.url, credentials: { token: await mintToken(claims, { ttlSeconds: 3600 }) } });
const alice = await client({ sub: 'alice', svc_groups: ['kms-admins'] });

t.test('createAccessKey, listAccessKeys page by page, deleteAccessKey', async (t) => {
  const own = await alice.createAccessKey();
  t.match(own, {
    accessKeyId: /^AKSV[A-Z2-7]{16}$/,
    secretAccessKey: /^[A-Za-z0-9_-]{43}$/,
    principal: { kind: 'Human', subject: 'alice' },
  });
  const forServices = [];
  for (const name of ['sdk-a', 'sdk-b', 'sdk-c']) forServices.push(await alice.createAccessKey({ service: name }));
  const resolved = await service.kernel.container
    .resolve<AccessKeyCredentials>(accessKeyCredentialsPort.id)
    .resolve(forServices[0]!.accessKeyId);
  t.equal(resolved?.secret, forServices[0]!.secretAccessKey, 'the secret the service resolves is the one answered');

  const page = await alice.listAccessKeys({ limit: 2 });
  t.equal(page.accessKeys.length, 2);
  t.type(page.nextAfter, 'string', 'a full page names where the next begins');
  const seen: string[] = [];
  for await (const keys of alice.accessKeyPages({ limit: 1 })) seen.push(...keys.map((k) => k.accessKeyId));
  t.same(seen, [own, ...forServices].map((k) => k.accessKeyId).sort(), 'every key once, by id');
  t.same(
    (await alice.listAccessKeys({ principal: 'sdk-b' })).accessKeys.map((k) => k.accessKeyId),
    [forServices[1]!.accessKeyId],
  );
  t.notOk(JSON.stringify(await alice.listAccessKeys()).includes(own.secretAccessKey), 'never a secret');

  t.match(await alice.deleteAccessKey(own.accessKeyId), {
    accessKeyId: own.accessKeyId,
    deleted: true,
    principal: { kind: 'Human', subject: 'alice' },
  });
  const gone = await alice.deleteAccessKey(own.accessKeyId).catch((err: unknown) => err);
  t.type(gone, SvcApiError);
  t.match(gone, { status: 404, code: 'NotFound' });
  const deployer = await client({ sub: 'deployer', svc_kind: 'service' });
  t.match(await deployer.createAccessKey().catch((err: unknown) => err), { status: 403, code: 'PermissionDenied' });
});
