// Compiles the server (app/main.ts and everything it imports) to JavaScript under dist/server, so
// `npm start` runs plain node without transpiling at start. The tree mirrors the sources (dist/server/app/
// main.js ...), so paths a module finds from its own location (import.meta.url) keep working.
import { spawnSync } from 'node:child_process';
import { cpSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const out = path.join(root, 'dist/server');
rmSync(out, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const result = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
if (result.status !== 0) process.exit(result.status ?? 1);
// Files a module reads beside itself that tsc does not emit: the gRPC service definitions (the Kubernetes KMS
// plugin's proto/api.proto), each with the notice and licence beside it.
for (const entry of readdirSync(path.join(root, 'plugins'), { recursive: true, withFileTypes: true })) {
  if (!entry.isDirectory() || entry.name !== 'proto') continue;
  const from = path.join(entry.parentPath, entry.name);
  cpSync(from, path.join(out, path.relative(root, from)), { recursive: true });
}
// Written last: the build is complete (scripts/check-build.mjs, run before npm start, compares sources with it).
writeFileSync(path.join(out, '.build-complete'), `${new Date().toISOString()}\n`);
