import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { lstatSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import t from 'tap';
import { k8sKmsClient } from '../helpers/k8s-kms-client.ts';
import { startTestService, tempDir } from '../helpers/service.ts';

/**
 * The Kubernetes KMS plugin's start: settings that cannot work stop the boot with a sentence naming the setting,
 * and the socket path is taken over only from a stale socket, never from a live one or a file that is not a socket.
 */

const ALIAS = 'alias/kubernetes';

t.test('the boot refuses settings that cannot work, and never removes a file that is not a stale socket', async (t) => {
  const boot = (dir: string, env: Record<string, string>) =>
    startTestService({ SVC_K8S_KMS_SOCKET: path.join(dir, 'kms.sock'), SVC_K8S_KMS_KEY_ID: ALIAS, ...env }, { dir });
  for (const [subject, message] of [
    ['svc-system', /k8s\.principal .* reserved for the service itself/],
    ['SVC-SYSTEM', /k8s\.principal .* reserved for the service itself/],
    [`agent-${randomUUID()}`, /k8s\.principal .* agent ids/],
    ['kube\u202eapiserver', /k8s\.principal .* must be 1\.\.256 characters/],
  ] as const)
    await t.rejects(boot(tempDir(), { SVC_K8S_KMS_PRINCIPAL: subject }), { message }, `principal ${subject}`);
  await t.rejects(boot(tempDir(), { SVC_K8S_KMS_KEY_ID: '' }), { message: /k8s\.keyId .* must be a key id or alias/ });
  await t.rejects(boot(tempDir(), { SVC_WORKERS: '2' }), { message: /k8s\.socket .* server\.workers .* is 2/ });
  await t.rejects(boot(tempDir(), { SVC_K8S_KMS_SOCKET: `/tmp/${'x'.repeat(120)}.sock` }), {
    message: /k8s\.socket .* is too long/,
  });

  const withFile = tempDir();
  writeFileSync(path.join(withFile, 'kms.sock'), 'not a socket');
  await t.rejects(boot(withFile, {}), { message: /exists and is not a socket/ });
  t.equal(readFileSync(path.join(withFile, 'kms.sock'), 'utf8'), 'not a socket', 'the file is left as it was');

  const live = tempDir();
  const other = createServer((c) => c.end());
  await new Promise<void>((resolve) => other.listen(path.join(live, 'kms.sock'), resolve));
  t.teardown(() => other.close());
  await t.rejects(boot(live, {}), { message: /another process serves on that socket/ });
  t.ok(lstatSync(path.join(live, 'kms.sock')).isSocket(), "the other process's socket is left in place");
});

t.test('a stale socket (a killed run) is replaced at start', async (t) => {
  const dir = tempDir();
  const socket = path.join(dir, 'kms.sock');
  // A process killed while it listened leaves its socket behind, with no one serving on it.
  const killed = spawn(
    process.execPath,
    ['-e', "require('net').createServer().listen(process.argv[1], () => process.stdout.write('up'))", socket],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise((resolve) => killed.stdout!.once('data', resolve));
  killed.kill('SIGKILL');
  await new Promise((resolve) => killed.once('exit', resolve));
  t.ok(lstatSync(socket).isSocket(), 'a socket nothing serves is at the path');
  const svc = await startTestService({ SVC_K8S_KMS_SOCKET: socket, SVC_K8S_KMS_KEY_ID: ALIAS }, { dir });
  t.teardown(() => svc.stop());
  t.equal(statSync(socket).mode & 0o777, 0o600);
  const alice = svc.client('alice');
  const id = await alice.key({ algorithm: 'AES', sizeBits: 256 });
  t.equal((await alice.call('PUT', `/v1/aliases/${encodeURIComponent(ALIAS)}`, { keyId: id })).status, 200);
  const kms = k8sKmsClient(socket);
  t.teardown(() => kms.close());
  t.equal((await kms.status()).healthz, 'ok', 'the service serves on the path the stale socket held');
});
