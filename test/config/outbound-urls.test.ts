import { createServer } from 'node:http';
import t from 'tap';
import { resolveConfiguration } from '../../app/start.ts';
import { spawnService } from '../helpers/process.ts';
import { startTestService } from '../helpers/service.ts';

/** Every setting that names an outbound HTTP endpoint, with its variable. */
const OUTBOUND = [
  ['crypto.cloudKms.endpoint', 'SVC_CRYPTO_CLOUD_KMS_ENDPOINT'],
  ['audit.webhook.url', 'SVC_AUDIT_WEBHOOK_URL'],
  ['advisor.llm.baseUrl', 'SVC_ADVISOR_LLM_BASE_URL'],
  ['auth.oidc.issuerUri', 'SVC_AUTH_OIDC_ISSUER_URI'],
] as const;

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

t.test(
  'an outbound URL in plain http to a host that is not loopback fails the config, naming the setting',
  async (t) => {
    for (const [key, env] of OUTBOUND) {
      const err = await resolveConfiguration([], { [env]: 'http://svc:hunter2@kms.example.com:4566/' }).then(
        () => undefined,
        (e: Error) => e.message,
      );
      t.match(
        err,
        new RegExp(
          `${escaped(key)}: must be https:// \\(plain http:// only to a loopback host\\), got http://kms\\.example\\.com:4566.*\\(env ${env}\\)`,
        ),
        `${key} refuses plain http to another host`,
      );
      t.notMatch(err, /hunter2/, `${key}: the refused URL's password is not repeated`);
      await t.rejects(
        resolveConfiguration([], { [env]: 'ftp://files.example.com/' }),
        new RegExp(`${escaped(key)}: must be https://`),
        `${key} refuses another scheme`,
      );
      await t.rejects(
        resolveConfiguration([], { [env]: 'kms.example.com' }),
        new RegExp(`${escaped(key)}: is not a URL`),
        `${key} refuses what is not a URL`,
      );
      for (const fine of [
        '',
        'https://kms.example.com',
        'http://127.0.0.1:4566',
        'http://localhost:8080/v1',
        'http://[::1]:4566',
      ]) {
        await t.resolves(resolveConfiguration([], { [env]: fine }), `${key} accepts "${fine}"`);
      }
    }
  },
);

t.test('the service refuses to boot with a plain-http cloud-kms endpoint to another host', async (t) => {
  const svc = spawnService({
    SVC_HTTP_HOST: '127.0.0.1',
    SVC_HTTP_PORT: '0',
    SVC_CRYPTO_KIND: 'cloud-kms',
    SVC_CRYPTO_CLOUD_KMS_REGION: 'eu-west-1',
    SVC_CRYPTO_CLOUD_KMS_KEK_ARN: 'arn:aws:kms:eu-west-1:000000000000:key/x',
    SVC_CRYPTO_CLOUD_KMS_ENDPOINT: 'http://kms.example.com:4566',
  });
  t.equal(await svc.exited, 1);
  t.match(
    svc.stderr(),
    /crypto\.cloudKms\.endpoint: must be https:\/\/ \(plain http:\/\/ only to a loopback host\), got http:\/\/kms\.example\.com:4566/,
  );
  t.notMatch(svc.stderr(), /"msg":"listening"/);
});

t.test(
  'an OIDC issuer whose discovery document names a plain-http key set on another host fails the boot',
  async (t) => {
    const idp = createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          issuer: `http://127.0.0.1:${(idp.address() as { port: number }).port}`,
          jwks_uri: 'http://keys.example.com/jwks',
        }),
      );
    });
    await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', resolve));
    t.teardown(() => idp.close());
    const issuer = `http://127.0.0.1:${(idp.address() as { port: number }).port}`;
    const boot = await startTestService({ SVC_AUTH_KIND: 'oidc', SVC_AUTH_OIDC_ISSUER_URI: issuer }).then(
      async (svc) => {
        await svc.stop();
        return 'booted';
      },
      (err: Error) => err.message,
    );
    t.match(
      boot,
      /jwks_uri: url must be https:\/\/ \(plain http:\/\/ only to a loopback host\), got http:\/\/keys\.example\.com/,
    );
  },
);
