import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { activeKey, call, CONNECTIONS, load, median, PINNED, ROOT, ROUNDS, SECONDS, start } from './lib/harness.ts';
import { checkoutOf, defaultRef } from './lib/other-version.ts';

/**
 * `npm run bench:compare [-- REF]`: today's tree against another version (any git ref; by default the
 * latest release), side by side with the bare Koa endpoint in the same run. Each scenario loads one
 * version and the bare endpoint at the same time (both servers on core 0), then the other version and the
 * bare endpoint, alternating which goes first, ROUNDS times: every number is a version's requests per
 * server CPU second over the bare endpoint's in the same load, so the machine's drift cancels, and the
 * quotient of the two versions' ratios is what a change to the request path cost or saved.
 * Writes docs/benchmarks-compare.md and the table into docs/benchmarks.md.
 */
const ref = process.argv[2] ?? process.env.BENCH_COMPARE_REF ?? defaultRef();
const other = checkoutOf(ref);
const today = execFileSync('git', ['rev-parse', '--short=7', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
const dirty =
  execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: ROOT, encoding: 'utf8' }).trim() !== '';
// A tag is shown with its commit; a commit (short or long) as its short form.
const refLabel = other.commit.startsWith(ref) ? other.commit.slice(0, 7) : `${ref} (${other.commit.slice(0, 7)})`;
const todayLabel = `today (${today}${dirty ? ' + uncommitted changes' : ''})`;

const work = mkdtempSync(path.join(tmpdir(), 'svc-compare-'));
const SERVICE_ENV = {
  SVC_HTTP_HOST: '127.0.0.1',
  SVC_HTTP_PORT: '0',
  SVC_JOURNAL_KIND: 'in-memory',
  SVC_AUDIT_KIND: 'stdout',
};
const bare = await start(['bench/bare-koa.ts'], {});
const versions = [
  { label: refLabel, server: await start(['app/main.ts'], SERVICE_ENV, path.join(work, 'audit-ref.jsonl'), other.dir) },
  { label: todayLabel, server: await start(['app/main.ts'], SERVICE_ENV, path.join(work, 'audit-today.jsonl')) },
];

try {
  const plaintextBase64 = Buffer.alloc(1024, 7).toString('base64');
  const message = {
    messageBase64: Buffer.from('a typical message to sign, about sixty-four bytes long......').toString('base64'),
  };
  const scenarios = await Promise.all(
    versions.map(async ({ server }) => {
      const aes = await activeKey(server.url, { algorithm: 'AES', sizeBits: 256 });
      const ed = await activeKey(server.url, { algorithm: 'EdDSA' });
      const p256 = await activeKey(server.url, { algorithm: 'EC', curve: 'P-256' });
      const { ciphertextBase64 } = await call(`${server.url}/v1/keys/${aes}/encrypt`, 'POST', { plaintextBase64 });
      return [
        ['encrypt 1 KiB', `/v1/keys/${aes}/encrypt`, { plaintextBase64 }],
        ['decrypt 1 KiB', `/v1/keys/${aes}/decrypt`, { ciphertextBase64 }],
        ['Ed25519 sign', `/v1/keys/${ed}/sign`, message],
        ['ECDSA P-256 sign', `/v1/keys/${p256}/sign`, message],
      ] as Array<[string, string, unknown]>;
    }),
  );
  process.stderr.write(`comparing ${refLabel} with ${todayLabel}; warming up...\n`);
  await load('warm-up bare', `${bare.url}/echo`, { plaintextBase64 }, 3);
  for (const [i, { server }] of versions.entries()) {
    for (const [name, urlPath, body] of scenarios[i]!)
      await load(`warm-up ${name}`, `${server.url}${urlPath}`, body, 2);
  }

  /** Per-CPU-second ratios to the bare endpoint, [scenario][version][round]; and req/s ratios likewise. */
  const perCpu = scenarios[0]!.map(() => versions.map(() => [] as number[]));
  const perRequest = scenarios[0]!.map(() => versions.map(() => [] as number[]));
  for (let round = 0; round < ROUNDS; round++) {
    process.stderr.write(`round ${round + 1} of ${ROUNDS}\n`);
    for (const [s] of scenarios[0]!.entries()) {
      // Which version goes first alternates, so a machine speeding up or slowing down favours neither.
      const order = (round + s) % 2 === 0 ? [0, 1] : [1, 0];
      for (const v of order) {
        const { label, server } = versions[v]!;
        const [name, urlPath, body] = scenarios[v]![s]!;
        const [row, base] = await Promise.all([
          load(`${name}, ${label}`, `${server.url}${urlPath}`, body, SECONDS, server.child.pid),
          load('bare Koa JSON echo (1 KiB body)', `${bare.url}/echo`, { plaintextBase64 }, SECONDS, bare.child.pid),
        ]);
        perCpu[s]![v]!.push(row.perCpuSecond / base.perCpuSecond);
        perRequest[s]![v]!.push(row.rps / base.rps);
      }
    }
  }

  const f = (x: number) => x.toFixed(2);
  const quotients = (s: number, of: number[][][]) => of[s]![1]!.map((x, r) => x / of[s]![0]![r]!);
  const rows = scenarios[0]!.map(
    ([name], s) =>
      `| ${name} | ${f(median(perCpu[s]![0]!))} | ${f(median(perCpu[s]![1]!))} | **${f(median(quotients(s, perCpu)))}** | ${quotients(s, perCpu).map(f).join(', ')} | ${f(median(quotients(s, perRequest)))} |`,
  );
  const table = [
    `| per server CPU second over bare Koa's, median of ${ROUNDS} | ${refLabel} | ${todayLabel} | today / ${refLabel.split(' ')[0]} | per round | req/s: today / ${refLabel.split(' ')[0]} |`,
    '|---|---|---|---|---|---|',
    ...rows,
  ];
  const doc = [
    '# Benchmarks: today against another version',
    '',
    '<!-- Written by `npm run bench:compare`; numbers from the run described below. -->',
    '',
    `Run on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} cores (${cpus()[0]?.model.trim()}), Node ${process.version}; ${refLabel} against`,
    `${todayLabel}. Each version runs from its own checkout (a git worktree of the ref, with its own dependencies when its`,
    'lockfile differs) under the same harness, settings and Node flags: dev ' +
      'authentication and policy, in-memory journal,',
    `stdout audit redirected to a file. autocannon, ${CONNECTIONS} connections per server, ${SECONDS} s per load, ${ROUNDS} rounds.`,
    PINNED
      ? 'Servers pinned to core 0, the load generator to core 1 (taskset).'
      : 'Servers and load generator share the cores (no taskset).',
    '',
    'Every load runs one version and the bare Koa endpoint at the same time on the same core; a number is the',
    "version's requests per second of its own CPU time over the bare endpoint's in that same load, so the drift",
    'of the machine moves both sides alike. Within a round the versions take turns going first. "today / ref" is',
    "the median of the rounds' quotients of the two versions' ratios: above 1, today answers more requests per CPU",
    'second than the other version did.',
    '',
    ...table,
    '',
  ].join('\n');
  writeFileSync(path.join(ROOT, 'docs/benchmarks-compare.md'), doc);
  // docs/benchmarks.md carries the same table between markers (bench/run.ts keeps them when it rewrites the page).
  const mainDoc = path.join(ROOT, 'docs/benchmarks.md');
  const section = [
    '<!-- compare:start -->',
    `Today against ${refLabel}, from \`npm run bench:compare\` (${new Date().toISOString().slice(0, 10)}; how: [benchmarks-compare.md](benchmarks-compare.md)):`,
    '',
    ...table,
    '<!-- compare:end -->',
  ].join('\n');
  const current = readFileSync(mainDoc, 'utf8');
  writeFileSync(
    mainDoc,
    current.includes('<!-- compare:start -->')
      ? current.replace(/<!-- compare:start -->[\s\S]*<!-- compare:end -->/, section)
      : `${current.trimEnd()}\n\n## Against the last release\n\n${section}\n`,
  );
  process.stdout.write(`${table.join('\n')}\n`);
} finally {
  bare.child.kill('SIGTERM');
  for (const { server } of versions) server.child.kill('SIGTERM');
}
