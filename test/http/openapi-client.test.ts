import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { startTestService } from '../helpers/service.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'node_modules/.bin');

function run(
  command: string,
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd: opts.cwd ?? ROOT, env: { ...process.env, ...opts.env }, maxBuffer: 32 * 1024 * 1024 },
      (err, stdout, stderr) => {
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` });
      },
    );
  });
}

/**
 * The OpenAPI document as the running service serves it: Redocly's linter (recommended rules) finds no
 * error or warning, and a client generated from it by openapi-typescript type-checks a lifecycle script
 * (test/openapi-client/lifecycle.ts) whose wrong calls must not type-check, then runs it against the service.
 */
t.test(
  'the served OpenAPI document lints clean and generates a client that drives a key through its life',
  async (t) => {
    const svc = await startTestService();
    t.teardown(() => svc.stop());
    const yaml = await (await fetch(`${svc.url}/docs/docs.yaml`)).text();
    // Inside node_modules so the generated client resolves openapi-fetch and @types/node from the project.
    const cacheDir = path.join(ROOT, 'node_modules/.cache');
    mkdirSync(cacheDir, { recursive: true });
    const work = mkdtempSync(path.join(cacheDir, 'openapi-client-'));
    t.teardown(() => rmSync(work, { recursive: true, force: true }));
    const doc = path.join(work, 'openapi.yaml');
    writeFileSync(doc, yaml);

    const lint = await run(path.join(BIN, 'redocly'), ['lint', doc, '--format=summary']);
    t.equal(lint.code, 0, 'redocly lint passes');
    t.notMatch(lint.out, /\b(error|warning)\s+[a-z0-9-]+:/, `no rule reports a problem:\n${lint.out}`);

    const generated = await run(path.join(BIN, 'openapi-typescript'), [doc, '-o', path.join(work, 'api.ts')]);
    t.equal(generated.code, 0, generated.out);
    copyFileSync(path.join(ROOT, 'test/openapi-client/lifecycle.ts'), path.join(work, 'lifecycle.ts'));
    writeFileSync(path.join(work, 'package.json'), JSON.stringify({ type: 'module', private: true }));
    writeFileSync(
      path.join(work, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          allowImportingTsExtensions: true,
          noEmit: true,
          strict: true,
          skipLibCheck: true,
          types: ['node'],
        },
        files: ['lifecycle.ts'],
      }),
    );
    const typecheck = await run(path.join(BIN, 'tsc'), ['-p', work]);
    t.equal(
      typecheck.code,
      0,
      `the lifecycle script type-checks against the generated client, and each wrong call is refused:\n${typecheck.out}`,
    );

    const lifecycle = await run(process.execPath, ['--import', 'tsx', path.join(work, 'lifecycle.ts')], {
      env: { SVC_URL: svc.url },
    });
    t.equal(lifecycle.code, 0, lifecycle.out);
    t.match(lifecycle.out, /lifecycle ok/);
  },
);
