import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

// The rules of the Dockerfile that matter for operators, checked on its text (a linter of our own:
// hadolint is not packaged for Debian). test/e2e/container-image.test.ts builds and runs the image.
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

interface Instruction {
  op: string;
  args: string;
}

/** Instructions with continuation lines joined and comments dropped, split into stages at each FROM. */
function parseDockerfile(text: string): { preamble: Instruction[]; stages: Instruction[][] } {
  const logical = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
  const preamble: Instruction[] = [];
  const stages: Instruction[][] = [];
  for (const line of logical) {
    const [, op, args] = /^(\S+)\s*(.*)$/.exec(line)!;
    const instruction = { op: op!.toUpperCase(), args: args! };
    if (instruction.op === 'FROM') stages.push([]);
    (stages.at(-1) ?? preamble).push(instruction);
  }
  return { preamble, stages };
}

const { preamble, stages } = parseDockerfile(readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8'));
const final = stages.at(-1)!;
const all = (stage: Instruction[], op: string) => stage.filter((i) => i.op === op);

t.test('the base is the official Node 24 image unless BASE_IMAGE says otherwise, in every stage', async (t) => {
  const arg = preamble.find((i) => i.op === 'ARG' && i.args.startsWith('BASE_IMAGE='));
  t.ok(arg, 'ARG BASE_IMAGE before the first FROM');
  t.match(arg!.args, /^BASE_IMAGE=docker\.io\/library\/node:24-bookworm-slim$/);
  t.ok(stages.length >= 2, 'multi-stage: a build stage and a runtime stage');
  for (const stage of stages) t.match(stage[0]!.args, /^\$\{BASE_IMAGE\}/, `FROM ${stage[0]!.args}`);
});

t.test(
  'the runtime stage runs as a non-root user and declares its data volume, port, healthcheck and entry point',
  async (t) => {
    const users = all(final, 'USER');
    t.equal(users.length, 1, 'one USER');
    t.notMatch(users[0]!.args, /^(root|0)(:|$)/, 'not root');
    const userAt = final.indexOf(users[0]!);
    t.ok(
      final.slice(userAt).every((i) => i.op !== 'RUN'),
      'nothing runs as root after USER',
    );
    t.match(
      all(final, 'VOLUME')
        .map((i) => i.args)
        .join(' '),
      /\/var\/lib\/svc-kms/,
    );
    const health = all(final, 'HEALTHCHECK');
    t.equal(health.length, 1);
    t.match(health[0]!.args, /CMD/);
    const probe = /"([^"]+\.mjs)"/.exec(health[0]!.args)?.[1];
    t.ok(probe, 'the healthcheck runs a probe script');
    t.match(readFileSync(path.join(ROOT, probe!), 'utf8'), /'\/healthz'/, 'which asks /healthz');
    t.ok(
      final.some((i) => i.op === 'COPY' && i.args.includes(probe!)),
      'and is copied into the image',
    );
    const entry = all(final, 'ENTRYPOINT').at(-1)?.args ?? '';
    t.match(
      entry,
      /^\["node",.*"dist\/server\/app\/main\.js"\]$/,
      'exec form: node itself is PID 1 and gets SIGTERM (no shell in between)',
    );
    t.notMatch(entry, /tsx|npm/, 'the built server, not tsx or npm');
  },
);

t.test('no dev dependencies, sources or tests reach the runtime stage', async (t) => {
  const build = stages[0]!;
  t.ok(
    all(build, 'RUN').some((i) => /npm prune --omit=dev/.test(i.args)),
    'the build stage prunes dev dependencies after compiling',
  );
  const copies = all(final, 'COPY');
  for (const copy of copies) t.match(copy.args, /^--from=/, `runtime COPY only from the build stage: ${copy.args}`);
  const copied = copies.map((c) => c.args.split(/\s+/)[1]);
  t.same(
    copied.filter(
      (p) =>
        !/^\/src\/(dist|node_modules|package\.json|scripts\/backup-sqlite\.mjs|deploy\/container\/healthcheck\.mjs)$/.test(
          p!,
        ),
    ),
    [],
    'only dist, node_modules, package.json and the operator scripts',
  );
  t.notOk(
    all(final, 'RUN').some((i) => /npm (ci|install)/.test(i.args)),
    'nothing is installed in the runtime stage',
  );
  const ignored = readFileSync(path.join(ROOT, '.dockerignore'), 'utf8').split('\n');
  for (const entry of ['.git', 'node_modules', 'dist', 'test', 'bench'])
    t.ok(ignored.includes(entry), `.dockerignore keeps ${entry} out of the build context`);
  for (const secret of ['.env', 'deploy/tls', '*.pem', '*.key'])
    t.ok(ignored.includes(secret), `.dockerignore keeps secrets (${secret}) out of the build context`);
});
