import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import t from 'tap';
import { startTestService, tempDir } from '../helpers/service.ts';
import { serverEntry } from '../helpers/server-entry.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** `npm start -- rewrap` as its own process, with exactly this environment. */
function rewrap(env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...serverEntry(), 'rewrap'],
      { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env } },
      (err, stdout, stderr) => {
        resolve({ code: err ? Number((err as { code?: number }).code) : 0, stdout, stderr });
      },
    );
  });
}

t.test(
  "rewrap run beside a serving node keeps that node's audit chain valid, and writes under its own registered node id",
  async (t) => {
    const dir = tempDir();
    const oldKek = randomBytes(32).toString('base64');
    const base = { SVC_JOURNAL_KIND: 'rdb-embedded', SVC_NODE_ID: 'node-a' };
    const before = await startTestService({ ...base, SVC_CRYPTO_LOCAL_KEK: oldKek }, { dir });
    const first = await before.client('ops').key({ algorithm: 'AES' });
    await before.stop();

    // The operator rotates the KEK: the node serves with the new KEK and the old one as previous, and rewrap runs
    // beside it.
    const svc = await startTestService(
      { ...base, SVC_CRYPTO_LOCAL_KEK: randomBytes(32).toString('base64'), SVC_CRYPTO_LOCAL_PREVIOUS_KEKS: oldKek },
      { dir },
    );
    t.teardown(() => svc.stop());
    const api = svc.client('ops');
    await api.key({ algorithm: 'EdDSA' });
    const run = await rewrap(svc.env);
    t.equal(run.code, 0, run.stderr);
    t.match(run.stdout, /^rewrapped 1 key-wrapping key\(s\) under local:[0-9a-f]{16}$/m);
    for (let i = 0; i < 3; i++) await api.key({ algorithm: 'AES' });
    t.equal((await api.get(`/v1/keys/${first}`)).status, 200);

    const verified = await svc.client('auditor').get('/v1/audit/verify?full=true');
    t.equal(verified.status, 200);
    t.equal(verified.body.valid, true, `the chains are intact: ${JSON.stringify(verified.body)}`);
    // verify reports a chain under a node id the journal never registered, so valid: true also says the command
    // registered.
    t.match(
      verified.body.nodes,
      ['node-a', /^node-a\/rewrap-\d{8}T\d{9}Z-\d+$/],
      'the rewrap wrote its own chain, under a node id named after the node it ran beside',
    );
    const rotated = (await svc.client('auditor').get('/v1/audit?operation=Rotate&limit=10')).body.records as Array<{
      resource: string;
    }>;
    t.ok(
      rotated.some((r) => r.resource.startsWith('kek:')),
      'the rewrap is audited',
    );
  },
);
