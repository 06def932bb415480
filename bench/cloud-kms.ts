import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { CreateKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { activeKey, call, median, PINNED, ROOT, start } from './lib/harness.ts';
import { pairedRounds, PLAINTEXT, type Round } from './lib/paired.ts';

/**
 * `npm run bench:cloud-kms`: the cloud-kms root of trust (on moto_server, the emulator the tests use)
 * against the local one, in one run. Warm cache: encrypt 1 KiB and Ed25519 sign per CPU second, ABBA
 * per round. Cold cache: the latency of single requests that each need the root of trust (one cached
 * entry, keys used in turn). Writes docs/benchmarks-cloud-kms.md.
 */
const work = mkdtempSync(path.join(tmpdir(), 'svc-bench-kms-'));
const motoBin = execFileSync('bash', ['-lc', 'command -v moto_server'], { encoding: 'utf8' }).trim();
const motoPort = 18000 + Math.floor(Math.random() * 2000);
const moto = spawn(motoBin, ['-H', '127.0.0.1', '-p', String(motoPort)], { stdio: 'ignore' });
const endpoint = `http://127.0.0.1:${motoPort}`;
const credentials = { AWS_ACCESS_KEY_ID: 'bench', AWS_SECRET_ACCESS_KEY: 'bench' };
for (let i = 0; i < 100; i++) {
  if (
    await fetch(endpoint).then(
      (r) => r.ok,
      () => false,
    )
  )
    break;
  await new Promise((r) => setTimeout(r, 100));
}
const kms = new KMSClient({
  region: 'us-east-1',
  endpoint,
  credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
});
const kekArn = (await kms.send(new CreateKeyCommand({}))).KeyMetadata!.Arn!;
kms.destroy();

const common = {
  SVC_HTTP_HOST: '127.0.0.1',
  SVC_HTTP_PORT: '0',
  SVC_JOURNAL_KIND: 'in-memory',
  SVC_AUDIT_KIND: 'stdout',
  ...credentials,
};
const cloudEnv = {
  SVC_CRYPTO_KIND: 'cloud-kms',
  SVC_CRYPTO_CLOUD_KMS_REGION: 'us-east-1',
  SVC_CRYPTO_CLOUD_KMS_KEK_ARN: kekArn,
  SVC_CRYPTO_CLOUD_KMS_ENDPOINT: endpoint,
};
const local = await start(['app/main.ts'], common, path.join(work, 'local.jsonl'));
const cloud = await start(['app/main.ts'], { ...common, ...cloudEnv }, path.join(work, 'cloud.jsonl'));
try {
  const rounds = await pairedRounds(
    { label: 'local', url: local.url, pid: local.child.pid },
    { label: 'cloud-kms', url: cloud.url, pid: cloud.child.pid },
  );
  const ratio = (r: Round['encrypt']) => r.b.perCpuSecond / r.a.perCpuSecond;
  const ratios = { encrypt: rounds.map((r) => ratio(r.encrypt)), sign: rounds.map((r) => ratio(r.sign)) };
  const cells = (r: Round['encrypt']) =>
    `${r.a.perCpuSecond.toFixed(0)} | ${r.b.perCpuSecond.toFixed(0)} | ${ratio(r).toFixed(2)}`;
  const rows = rounds.map((r, i) => `| ${i + 1} | ${cells(r.encrypt)} | ${cells(r.sign)} |`);

  // Cold cache: one cached entry, keys used in turn, so every request unwraps a KWK.
  const cold = async (env: Record<string, string>) => {
    const svc = await start(
      ['app/main.ts'],
      { ...common, ...env, SVC_CRYPTO_CACHE_MAX_ENTRIES: '1' },
      path.join(work, 'cold.jsonl'),
    );
    try {
      const ids = await Promise.all(Array.from({ length: 20 }, () => activeKey(svc.url, { algorithm: 'AES' })));
      const times: number[] = [];
      for (let i = 0; i < 400; i++) {
        const t0 = performance.now();
        await call(`${svc.url}/v1/keys/${ids[i % ids.length]}/encrypt`, 'POST', PLAINTEXT);
        times.push(performance.now() - t0);
      }
      times.sort((a, b) => a - b);
      return { p50: times[200]!, p99: times[396]! };
    } finally {
      svc.child.kill('SIGTERM');
    }
  };
  const coldLocal = await cold({});
  const coldCloud = await cold(cloudEnv);

  const doc = [
    '# Benchmarks: cloud-kms root of trust',
    '',
    '<!-- Written by `npm run bench:cloud-kms`; numbers from the run described below. -->',
    '',
    `Run on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} cores (${cpus()[0]?.model.trim()}), Node ${process.version}; ${PINNED ? 'servers pinned to core 0, autocannon to core 1' : 'cores shared'}.`,
    'cloud-kms talks to moto_server on 127.0.0.1 (the emulator the tests use; a real KMS adds network latency',
    'to the cold-cache numbers only). Both services: full chain, in-memory journal, stdout audit to a file.',
    '',
    '## Warm cache (requests per CPU second of the server, ABBA per round)',
    '',
    '| Round | encrypt local | encrypt cloud-kms | ratio | sign local | sign cloud-kms | ratio |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `Median ratio cloud-kms / local: encrypt **${median(ratios.encrypt).toFixed(2)}**, Ed25519 sign **${median(ratios.sign).toFixed(2)}** (goal: within 10%).`,
    'With the KWK and the parsed material cached, a request never reaches the root of trust, so both',
    'services run the same code per request.',
    '',
    '## Cold cache (every request unwraps a key-wrapping key)',
    '',
    '| Root of trust | p50 ms | p99 ms |',
    '|---|---|---|',
    `| local | ${coldLocal.p50.toFixed(2)} | ${coldLocal.p99.toFixed(2)} |`,
    `| cloud-kms (moto on loopback) | ${coldCloud.p50.toFixed(2)} | ${coldCloud.p99.toFixed(2)} |`,
    '',
    'Single sequential requests, 400 of them over 20 keys with one cache entry. The difference is one KMS',
    'Decrypt round trip per cache miss; `SVC_CRYPTO_CACHE_TTL_SECONDS` (300) bounds how often a key pays it.',
    '',
  ].join('\n');
  writeFileSync(path.join(ROOT, 'docs/benchmarks-cloud-kms.md'), doc);
  process.stderr.write('docs/benchmarks-cloud-kms.md written\n');
} finally {
  local.child.kill('SIGTERM');
  cloud.child.kill('SIGTERM');
  moto.kill('SIGTERM');
}
