import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { activeKey, call, CONNECTIONS, load, median, PINNED, ROOT, ROUNDS, SECONDS, start } from './lib/harness.ts';
import { checkoutOf, defaultRef } from './lib/other-version.ts';

/**
 * `npm run bench:compare [-- REF]`: today's tree against another version (any git ref; by default the
 * latest release), side by side with the bare Koa endpoint in the same run. Each load runs the other
 * version, today's tree, a second process of today's (the control) and the bare endpoint at the same time,
 * all on core 0, each under a load of its own: they share every second of the machine's drift, so
 * "today / ref" is a quotient of two numbers taken over the same seconds, and so is each version's ratio to
 * the bare endpoint. Today over the control reads 1.00 within the instrument's spread. ROUNDS rounds.
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
  {
    label: 'today, a second process',
    server: await start(['app/main.ts'], SERVICE_ENV, path.join(work, 'audit-2.jsonl')),
  },
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

  /** Per scenario and version, its per-CPU-second ratio to bare Koa by round; and req/s over the ref's. */
  const perCpu = scenarios[0]!.map(() => versions.map(() => [] as number[]));
  const rps = scenarios[0]!.map(() => [] as number[]);
  for (let round = 0; round < ROUNDS; round++) {
    process.stderr.write(`round ${round + 1} of ${ROUNDS}\n`);
    for (const [s] of scenarios[0]!.entries()) {
      // Every server under its own load at the same time: the same seconds of the machine for all of them.
      const [base, ...rows] = await Promise.all([
        load('bare Koa JSON echo (1 KiB body)', `${bare.url}/echo`, { plaintextBase64 }, SECONDS, bare.child.pid),
        ...versions.map(({ label, server }, v) => {
          const [name, urlPath, body] = scenarios[v]![s]!;
          return load(`${name}, ${label}`, `${server.url}${urlPath}`, body, SECONDS, server.child.pid);
        }),
      ]);
      for (const [v, row] of rows.entries()) perCpu[s]![v]!.push(row.perCpuSecond / base!.perCpuSecond);
      rps[s]!.push(rows[1]!.rps / rows[0]!.rps);
    }
  }

  const f = (x: number) => x.toFixed(2);
  const ref0 = refLabel.split(' ')[0];
  const quotients = (s: number, of: number, over: number) =>
    perCpu[s]![of]!.map((x, round) => x / perCpu[s]![over]![round]!);
  const rows = scenarios[0]!.map(([name], s) => {
    const today = quotients(s, 1, 0);
    const control = quotients(s, 1, 2);
    return `| ${name} | ${f(median(perCpu[s]![0]!))} | ${f(median(perCpu[s]![1]!))} | **${f(median(today))}** | ${today.map(f).join(', ')} | ${f(median(rps[s]!))} | ${f(median(control))} (${control.map(f).join(', ')}) |`;
  });
  const table = [
    `| per server CPU second over bare Koa's, median of ${ROUNDS} | ${refLabel} | ${todayLabel} | today / ${ref0} | per round | req/s: today / ${ref0} | control: today / today |`,
    '|---|---|---|---|---|---|---|',
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
    "Every load runs the other version, today's tree, a second process of today's tree and the bare Koa endpoint",
    "at the same time on the same core, each under its own load: a version's number is its requests per second of",
    'its own CPU time over the bare endpoint\'s in that same load, and "today / ref" is the median of the rounds\'',
    "quotients of the two versions' numbers, both taken over the same seconds, so the drift of the machine moves",
    'both sides alike. Above 1, today answers more requests per CPU second than the other version did. The control',
    'column is today over the second process of today, which does the same work at the same time: how far it',
    'strays from 1.00 is how far this instrument can be trusted.',
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
