// Run by `npm start` first (prestart): the server it starts is the one compiled to dist/server, so a
// missing build stops here with what to do, and a build older than the sources says so instead of
// silently running yesterday's code.
import path from 'node:path';
import { buildFreshness } from './build-freshness.mjs';

const freshness = buildFreshness(path.resolve(import.meta.dirname, '..'));
if (!freshness.built) {
  process.stderr.write(
    'svc-kms: the server is not built (dist/server is missing): run npm run build, or npm run dev to run the sources\n',
  );
  process.exit(1);
}
if (freshness.changed) {
  process.stderr.write(
    `svc-kms: warning: ${freshness.changed} changed after the last build; this runs the build (npm run build to rebuild, npm run dev to run the sources)\n`,
  );
}
