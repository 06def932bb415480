import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { startTestService, tempDir } from '../helpers/service.ts';

// The TypeScript SDK as a package of its own (the npm workspace clients/sdk, @svc-kms/sdk): packed as
// `npm pack` makes it, installed into an empty project that has nothing of the server, then used from
// JavaScript against a running service and compiled against from TypeScript.
const ROOT = path.resolve(import.meta.dirname, '../..');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');

function run(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const service = await startTestService();
t.teardown(() => service.stop());
const work = tempDir('svc-sdk-package-');
const consumer = path.join(work, 'consumer');
mkdirSync(consumer);
writeFileSync(
  path.join(consumer, 'package.json'),
  JSON.stringify({ name: 'consumer', version: '1.0.0', type: 'module', private: true }),
);

t.test(
  'npm pack builds the workspace into a package of JavaScript and declarations, without the server or the sources',
  async (t) => {
    const packed = await run('npm', ['pack', '-w', 'clients/sdk', '--pack-destination', work, '--json'], ROOT);
    t.equal(packed.code, 0, packed.stderr);
    const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as Array<{
      name: string;
      filename: string;
      files: Array<{ path: string }>;
    }>;
    t.equal(info!.name, '@svc-kms/sdk');
    const files = info!.files.map((f) => f.path);
    t.ok(
      files.includes('dist/index.js') &&
        files.includes('dist/types/clients/sdk/index.d.ts') &&
        files.includes('package.json'),
    );
    t.same(
      files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')),
      [],
      'no TypeScript sources',
    );
    t.same(
      files.filter((f) => /(^|\/)(plugins|app|config)\//.test(f) || /kernel\/(?!model\/)/.test(f)),
      [],
      'nothing of the server but the model types the schemas name',
    );

    const installed = await run(
      'npm',
      ['install', '--no-audit', '--no-fund', '--prefer-offline', path.join(work, info!.filename)],
      consumer,
    );
    t.equal(installed.code, 0, installed.stderr);
    const top = readdirSync(path.join(consumer, 'node_modules')).filter((d) => !d.startsWith('.'));
    const packages = top
      .flatMap((d) =>
        d.startsWith('@') ? readdirSync(path.join(consumer, 'node_modules', d)).map((s) => `${d}/${s}`) : [d],
      )
      .sort();
    t.same(
      packages,
      ['@sinclair/typebox', '@svc-kms/sdk', 'undici'],
      "the SDK and its two dependencies, none of the server's (koa, knex, pg ...)",
    );
  },
);

t.test('installed, it talks to the running service from plain JavaScript', async (t) => {
  writeFileSync(
    path.join(consumer, 'use.mjs'),
    `
import { SvcClient, isSvcApiError } from '@svc-kms/sdk';
const kms = new SvcClient({ server: process.env.KMS_URL, credentials: { user: 'packaged' } });
const key = await kms.createKey({ name: 'from-the-package', algorithm: 'AES' });
await kms.activateKey(key.id);
const sealed = await kms.encrypt(key.id, new TextEncoder().encode('card 4111'), { tenant: 'acme' });
const opened = await kms.decrypt(key.id, sealed.ciphertext, { tenant: 'acme' });
let refused = '';
try { await kms.getKey('00000000-0000-4000-8000-000000000000'); } catch (err) { refused = isSvcApiError(err) ? err.code : String(err); }
console.log(JSON.stringify({ id: key.id, plaintext: new TextDecoder().decode(opened.plaintext), refused }));
`,
  );
  const used = await run(process.execPath, ['use.mjs'], consumer, { PATH: process.env.PATH, KMS_URL: service.url });
  t.equal(used.code, 0, used.stderr);
  const result = JSON.parse(used.stdout);
  t.equal(result.plaintext, 'card 4111');
  t.equal(result.refused, 'KeyNotFound');
  const seen = await service.client('packaged').get(`/v1/keys/${result.id}`);
  t.match(
    seen.body,
    { state: 'Active', owner: 'packaged', spec: { name: 'from-the-package' } },
    'the service holds the key the package made',
  );
});

t.test(
  "its declarations type a TypeScript project: the API's types are real, and misuse does not compile",
  async (t) => {
    // The consumer's own Node types would come from its @types/node; this repository's stand in for them.
    const tsconfig = (file: string) =>
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          typeRoots: [path.join(ROOT, 'node_modules/@types')],
          types: ['node'],
        },
        files: [file],
      });
    writeFileSync(
      path.join(consumer, 'good.ts'),
      `
import { SvcClient, SvcApiError, type ManagedKey, type AuditRecord } from '@svc-kms/sdk';
type IsAny<T> = 0 extends 1 & T ? true : false;
const typed: [IsAny<ManagedKey>, IsAny<AuditRecord>, IsAny<SvcClient>] = [false, false, false];
export async function stateOf(kms: SvcClient, id: string): Promise<ManagedKey['state']> {
  try { return (await kms.getKey(id)).state; } catch (err) { if (err instanceof SvcApiError) throw new Error(err.code); throw err; }
}
void typed;
`,
    );
    writeFileSync(path.join(consumer, 'tsconfig.good.json'), tsconfig('good.ts'));
    const good = await run(process.execPath, [TSC, '-p', 'tsconfig.good.json'], consumer);
    t.equal(good.code, 0, good.stdout + good.stderr);

    writeFileSync(
      path.join(consumer, 'bad.ts'),
      `
import { SvcClient } from '@svc-kms/sdk';
export async function wrong(kms: SvcClient): Promise<number> {
  return (await kms.getKey('x')).state;
}
`,
    );
    writeFileSync(path.join(consumer, 'tsconfig.bad.json'), tsconfig('bad.ts'));
    const bad = await run(process.execPath, [TSC, '-p', 'tsconfig.bad.json'], consumer);
    t.not(bad.code, 0);
    t.match(bad.stdout, /bad\.ts.*error TS2322: Type '.*' is not assignable to type 'number'/);
  },
);
