import { spawnSync } from 'node:child_process';
import path from 'node:path';
import t from 'tap';

const ROOT = path.resolve(import.meta.dirname, '../..');

// The client libraries of optional plugins (SQL, Kafka, NATS, Redis, webhooks, a cloud KMS, the Kubernetes KMS
// plugin's gRPC) load when a deployment uses them, not with the plugin catalogue: a server on the defaults boots
// without them.
const OPTIONAL = [
  'knex',
  'lodash',
  'kafkajs',
  'nats',
  'ioredis',
  'undici',
  '@aws-sdk/client-kms',
  '@grpc/grpc-js',
  '@grpc/proto-loader',
];

t.test('the plugin catalogue and the default configuration load no optional client library', async (t) => {
  const script = `
    import { createRequire } from 'node:module';
    const { resolveConfiguration } = await import('./app/start.ts');
    const { selectPlugins } = await import('./app/compose.ts');
    const { deploymentOf } = await import('./app/deployment.ts');
    const { config, thirdParty } = await resolveConfiguration([], {});
    selectPlugins(config.values, deploymentOf(config.values), thirdParty);
    const loaded = Object.keys(createRequire(import.meta.url).cache);
    process.stdout.write(JSON.stringify(loaded));
  `;
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '' },
  });
  t.equal(run.status, 0, run.stderr);
  const loaded = JSON.parse(run.stdout) as string[];
  t.ok(
    loaded.some((f) => f.includes('/node_modules/ajv/')),
    'the probe sees CommonJS packages that do load',
  );
  for (const name of OPTIONAL) {
    t.notOk(
      loaded.some((f) => f.includes(`/node_modules/${name}/`)),
      `${name} is not loaded`,
    );
  }
});
