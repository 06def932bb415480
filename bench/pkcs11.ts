import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { activeKey, call, median, PINNED, ROOT, start } from './lib/harness.ts';
import { pairedRounds, PLAINTEXT, type Round } from './lib/paired.ts';

/**
 * `npm run bench:pkcs11`: the pkcs11 root of trust (on SoftHSM2, a token of its own in a temporary folder)
 * against the local one, in one run. Warm cache: encrypt 1 KiB and Ed25519 sign per CPU second, ABBA per
 * round. Cold cache (one cached entry, keys used in turn, so every request unwraps a KWK; both services
 * measured in alternation): the latency of single requests, then the throughput of 16 concurrent
 * callers, which shows the session pool and the binding's asynchronous calls at work. Writes
 * docs/benchmarks-pkcs11.md.
 */
const module = ['/usr/lib/softhsm/libsofthsm2.so', '/usr/lib/x86_64-linux-gnu/softhsm/libsofthsm2.so'].find((m) =>
  existsSync(m),
);
if (!module) throw new Error('SoftHSM2 is not installed (Debian package softhsm2)');
const work = mkdtempSync(path.join(tmpdir(), 'svc-bench-pkcs11-'));
const tokenDir = path.join(work, 'tokens');
mkdirSync(tokenDir);
process.env.SOFTHSM2_CONF = path.join(work, 'softhsm2.conf');
writeFileSync(
  process.env.SOFTHSM2_CONF,
  `directories.tokendir = ${tokenDir}\nobjectstore.backend = file\nlog.level = ERROR\n`,
);
execFileSync('softhsm2-util', ['--init-token', '--free', '--label', 'bench', '--pin', '1234', '--so-pin', '5678'], {
  stdio: 'ignore',
});

const common = {
  SVC_HTTP_HOST: '127.0.0.1',
  SVC_HTTP_PORT: '0',
  SVC_JOURNAL_KIND: 'in-memory',
  SVC_AUDIT_KIND: 'stdout',
};
const pkcs11Env = {
  SVC_CRYPTO_KIND: 'pkcs11',
  SVC_CRYPTO_PKCS11_MODULE: module,
  SVC_CRYPTO_PKCS11_TOKEN_LABEL: 'bench',
  SVC_CRYPTO_PKCS11_PIN: '1234',
  SVC_CRYPTO_PKCS11_KEK_LABEL: 'bench-kek',
  SVC_CRYPTO_PKCS11_CREATE_KEK: 'true',
};
const load1 = loadavg()[0]!;
const local = await start(['app/main.ts'], common, path.join(work, 'local.jsonl'));
const pkcs11 = await start(['app/main.ts'], { ...common, ...pkcs11Env }, path.join(work, 'pkcs11.jsonl'));
try {
  const rounds = await pairedRounds(
    { label: 'local', url: local.url, pid: local.child.pid },
    { label: 'pkcs11', url: pkcs11.url, pid: pkcs11.child.pid },
  );
  const ratio = (r: Round['encrypt']) => r.b.perCpuSecond / r.a.perCpuSecond;
  const ratios = { encrypt: rounds.map((r) => ratio(r.encrypt)), sign: rounds.map((r) => ratio(r.sign)) };
  const cells = (r: Round['encrypt']) =>
    `${r.a.perCpuSecond.toFixed(0)} | ${r.b.perCpuSecond.toFixed(0)} | ${ratio(r).toFixed(2)}`;
  const rows = rounds.map((r, i) => `| ${i + 1} | ${cells(r.encrypt)} | ${cells(r.sign)} |`);
  local.child.kill('SIGTERM');
  pkcs11.child.kill('SIGTERM');

  // Cold cache: one cached entry, keys used in turn, so every request unwraps a KWK. Both services run at
  // once and are measured in alternation, so a machine that slows down or speeds up moves both alike.
  const coldLocalSvc = await start(
    ['app/main.ts'],
    { ...common, SVC_CRYPTO_CACHE_MAX_ENTRIES: '1' },
    path.join(work, 'cold-local.jsonl'),
  );
  const coldPkcs11Svc = await start(
    ['app/main.ts'],
    { ...common, ...pkcs11Env, SVC_CRYPTO_CACHE_MAX_ENTRIES: '1' },
    path.join(work, 'cold-pkcs11.jsonl'),
  );
  const coldLocal = { times: [] as number[], requests: 0, ms: 0 };
  const coldPkcs11 = { times: [] as number[], requests: 0, ms: 0 };
  try {
    const sides = await Promise.all(
      [coldLocalSvc, coldPkcs11Svc].map(async (svc, i) => {
        const ids = await Promise.all(Array.from({ length: 32 }, () => activeKey(svc.url, { algorithm: 'AES' })));
        return {
          encrypt: (n: number) => call(`${svc.url}/v1/keys/${ids[n % ids.length]}/encrypt`, 'POST', PLAINTEXT),
          out: i === 0 ? coldLocal : coldPkcs11,
        };
      }),
    );
    for (let i = 0; i < 400; i++) {
      for (const side of i % 2 === 0 ? sides : [...sides].reverse()) {
        const t0 = performance.now();
        await side.encrypt(i);
        side.out.times.push(performance.now() - t0);
      }
    }
    // 16 callers at once, keys in turn (every request still misses the cache); blocks of 800 in ABBA order.
    for (const side of [sides[0]!, sides[1]!, sides[1]!, sides[0]!]) {
      let next = 0;
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (next < 800) await side.encrypt(next++);
        }),
      );
      side.out.ms += performance.now() - t0;
      side.out.requests += 800;
    }
  } finally {
    coldLocalSvc.child.kill('SIGTERM');
    coldPkcs11Svc.child.kill('SIGTERM');
  }
  const summary = (c: typeof coldLocal) => {
    const sorted = [...c.times].sort((x, y) => x - y);
    return {
      p50: sorted[Math.floor(sorted.length / 2)]!,
      p99: sorted[Math.floor(sorted.length * 0.99)]!,
      concurrent: c.requests / (c.ms / 1000),
    };
  };
  const load2 = loadavg()[0]!;

  const doc = [
    '# Benchmarks: pkcs11 root of trust',
    '',
    '<!-- Written by `npm run bench:pkcs11`; numbers from the run described below. -->',
    '',
    `Run on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} cores (${cpus()[0]?.model.trim()}), Node ${process.version}; ${PINNED ? 'servers pinned to core 0, autocannon to core 1' : 'cores shared'};`,
    `load average ${load1.toFixed(1)} at the start, ${load2.toFixed(1)} at the end${Math.max(load1, load2) > cpus().length ? ': the machine was busy with other work, so take the ratios, not the ' + 'absolute numbers, and re-run on a quiet machine' : ''}.`,
    "pkcs11 talks to SoftHSM2 (a software token: the library runs in the service's process, so a token call costs",
    'CPU there; a network HSM adds a round trip to the cold-cache numbers instead). Both services: full chain,',
    'in-memory journal, stdout audit to a file.',
    '',
    '## Warm cache (requests per CPU second of the server, ABBA per round)',
    '',
    '| Round | encrypt local | encrypt pkcs11 | ratio | sign local | sign pkcs11 | ratio |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `Median ratio pkcs11 / local: encrypt **${median(ratios.encrypt).toFixed(2)}**, Ed25519 sign **${median(ratios.sign).toFixed(2)}**.`,
    'With the KWK and the parsed material cached, a request never reaches the token, so both services run',
    'the same code per request.',
    '',
    '## Cold cache (every request unwraps a key-wrapping key)',
    '',
    '| Root of trust | p50 ms | p99 ms | 16 concurrent callers, req/s |',
    '|---|---|---|---|',
    `| local | ${summary(coldLocal).p50.toFixed(2)} | ${summary(coldLocal).p99.toFixed(2)} | ${summary(coldLocal).concurrent.toFixed(0)} |`,
    `| pkcs11 (SoftHSM2) | ${summary(coldPkcs11).p50.toFixed(2)} | ${summary(coldPkcs11).p99.toFixed(2)} | ${summary(coldPkcs11).concurrent.toFixed(0)} |`,
    '',
    'Latency: single sequential requests, 400 per service over 32 keys with one cache entry, the two services',
    'in alternation. Throughput: 16 concurrent callers over the same keys, 1,600 requests per service in',
    'blocks of 800, ABBA. The difference is one unwrap on the token per cache miss',
    '(a session object, C_UnwrapKey on the thread pool, reading the value back); `SVC_CRYPTO_CACHE_TTL_SECONDS`',
    '(300) bounds how often a key pays it.',
    '',
  ].join('\n');
  writeFileSync(path.join(ROOT, 'docs/benchmarks-pkcs11.md'), doc);
  process.stderr.write('docs/benchmarks-pkcs11.md written\n');
} finally {
  local.child.kill('SIGTERM');
  pkcs11.child.kill('SIGTERM');
  rmSync(work, { recursive: true, force: true });
}
