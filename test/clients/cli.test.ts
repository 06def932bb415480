import { createPublicKey, verify as verifySignature } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { cliEnv, svc, svcJson, svcUntil } from '../helpers/cli.ts';
import { startTestService, tempDir } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

const service = await startTestService({ SVC_AUTH_KIND: 'hmac', SVC_AUTH_HMAC_SECRET: TEST_SECRET });
t.teardown(() => service.stop());
const alice = await mintToken({ sub: 'alice' }, { ttlSeconds: 3600 });
const home = tempDir('svc-cli-home-');
const env = cliEnv(home, { SVC_SERVER: service.url, SVC_TOKEN: alice });
const json = svcJson(env);

t.test('login writes a 0600 config that later commands use without flags or environment', async (t) => {
  const own = tempDir('svc-cli-login-');
  const bare = cliEnv(own);
  const login = await svc(['login', '--server', service.url, '--token', alice], bare);
  t.equal(login.code, 0, login.stderr);
  const file = path.join(own, 'svc', 'config.json');
  t.equal(statSync(file).mode & 0o777, 0o600);
  t.same(JSON.parse(readFileSync(file, 'utf8')), { server: service.url, token: alice });
  const created = await svc(['keys', 'create', '--name', 'from-login', '--algorithm', 'AES', '--json'], bare);
  t.equal(created.code, 0, created.stderr);
  t.equal(JSON.parse(created.out).spec.name, 'from-login');
  const unreachable = await svc(['login', '--server', 'http://127.0.0.1:1', '--user', 'x'], cliEnv(tempDir()));
  t.equal(unreachable.code, 1, 'a server that does not answer is not remembered');
  t.match(unreachable.stderr, /NetworkError/);
});

t.test('the whole lifecycle of an EC P-256 key', async (t) => {
  const key = await json(['keys', 'create', '--name', 'release-signer', '--algorithm', 'EC', '--curve', 'P-256']);
  t.match(key, { state: 'PreActive', currentVersion: 1, spec: { algorithm: 'EC', curve: 'P-256', sizeBits: 256 } });
  t.equal((await json(['keys', 'activate', key.id])).state, 'Active');

  const v1 = await json(['keys', 'sign', key.id, '--message', 'release 1.0']);
  t.equal(v1.keyVersion, 1);
  const pem = await svc(['keys', 'public-key', key.id], env);
  t.match(pem.out, /^-----BEGIN PUBLIC KEY-----/);
  t.ok(
    verifySignature(
      'sha256',
      Buffer.from('release 1.0'),
      createPublicKey(pem.out),
      Buffer.from(v1.signatureBase64, 'base64'),
    ),
    'the PEM verifies the signature outside svc',
  );

  const valid = await svc(
    ['keys', 'verify', key.id, '--message', 'release 1.0', '--signature', v1.signatureBase64],
    env,
  );
  t.equal(valid.code, 0);
  t.match(valid.out, /valid\s+true/);
  const forged = await svc(
    ['keys', 'verify', key.id, '--message', 'release 6.6', '--signature', v1.signatureBase64],
    env,
  );
  t.equal(forged.code, 3, 'valid:false exits 3');
  t.match(forged.out, /valid\s+false/);

  t.match(await json(['keys', 'rotate', key.id, '--reason', 'yearly']), { previousVersion: 1, currentVersion: 2 });
  t.equal((await json(['keys', 'sign', key.id, '--message', 'release 2.0'])).keyVersion, 2);
  t.match(
    await json(['keys', 'verify', key.id, '--message', 'release 1.0', '--signature', v1.signatureBase64]),
    { valid: true, keyVersion: 1 },
    'version 1 signatures still verify',
  );

  t.equal((await json(['keys', 'revoke', key.id, '--reason', 'superseded'])).state, 'Deactivated');
  const refused = await svc(['keys', 'sign', key.id, '--message', 'late'], env);
  t.equal(refused.code, 1);
  t.match(refused.stderr, /IllegalOperation \(HTTP 409\)/);
  t.equal((await json(['keys', 'compromise', key.id, '--reason', 'laptop stolen'])).state, 'Compromised');
  t.equal((await json(['keys', 'destroy', key.id])).state, 'Destroyed');
  t.equal((await json(['keys', 'get', key.id])).state, 'Destroyed');

  const listed = await svc(['keys', 'list', '--json'], env);
  t.equal(listed.code, 0, listed.stderr);
  const rows = listed.out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  t.match(
    rows.find((r) => r.id === key.id),
    { name: 'release-signer', state: 'Destroyed', algorithm: 'EC', currentVersion: 2 },
  );
});

t.test('exit codes: 2 usage, 4 not found, 5 permission denied; global flags after the command', async (t) => {
  const usage = [
    ['keys', 'create', '--name', 'x'],
    ['keys', 'bogus'],
    ['keys', 'list', '--limit', 'many'],
    ['keys', 'sign', '00000000-0000-0000-0000-000000000000', '--message', 'a', '--file', 'b'],
    ['keys', 'encrypt', '00000000-0000-0000-0000-000000000000', '--message-base64', 'not base64!'],
    ['keys', 'get', 'x', '--server', 'not a url'],
  ];
  for (const args of usage) {
    const r = await svc(args, env);
    t.equal(r.code, 2, `${args.join(' ')} is a usage error`);
    t.match(r.stderr, /error|usage/);
  }
  const missing = await svc(['keys', 'get', '5d0c9a3e-1111-4222-8333-944455556666'], env);
  t.equal(missing.code, 4);
  t.match(missing.stderr, /KeyNotFound \(HTTP 404\).*\[request [0-9a-f-]{36}\]/);

  const key = await json(['keys', 'create', '--name', 'agent-target', '--algorithm', 'EdDSA']);
  await json(['keys', 'activate', key.id]);
  const issued = await json(['agent', 'issue', '--label', 'ci-signer', '--scope', 'Sign,Get', '--ttl', '600']);
  t.match(issued.agentId, /^agent-/);
  const agentEnv = cliEnv(home, { SVC_SERVER: service.url, SVC_TOKEN: issued.jwt });
  t.equal((await svc(['keys', 'sign', key.id, '--message', 'ok'], agentEnv)).code, 0, 'the agent may sign');
  const denied = await svc(['keys', 'encrypt', key.id, '--message', 'no'], agentEnv);
  t.equal(denied.code, 5, 'PermissionDenied exits 5');
  t.match(denied.stderr, /PermissionDenied \(HTTP 403\)/);

  const listed = await svc(['agent', 'list'], env);
  t.match(
    listed.out,
    new RegExp(`^${issued.agentId}  alice  Sign,Get  expires .*  ci-signer$`, 'm'),
    'svc agent list shows the agent, one line each',
  );
  const killed = await json(['agent', 'revoke', issued.agentId]);
  t.match(killed, { agentId: issued.agentId, revoked: true });
  const after = await svc(['keys', 'sign', key.id, '--message', 'ok'], agentEnv);
  t.equal(after.code, 1, 'the revoked agent is refused');
  t.match(after.stderr, /Unauthorized \(HTTP 401\)/);
  t.match(
    (await svc(['agent', 'list', '--json'], env)).out,
    new RegExp(`"agentId":"${issued.agentId}".*"revoked":true`),
  );

  // Flags after the command, instead of the environment.
  const flagsAfter = await svc(
    ['keys', 'get', key.id, '--server', service.url, '--token', alice, '--json'],
    cliEnv(tempDir()),
  );
  t.equal(flagsAfter.code, 0, flagsAfter.stderr);
  t.equal(JSON.parse(flagsAfter.out).id, key.id);

  const revoked = await json(['tokens', 'revoke', issued.jti, '--expires-at', issued.expiresAt]);
  t.same(revoked, { jti: issued.jti, revoked: true });
  const afterRevoke = await svc(['keys', 'sign', key.id, '--message', 'ok'], agentEnv);
  t.equal(afterRevoke.code, 1);
  t.match(afterRevoke.stderr, /Unauthorized \(HTTP 401\)/);
});

t.test('audit tail prints the latest records and --follow prints new ones as they come', async (t) => {
  const key = await json(['keys', 'create', '--name', 'tailed', '--algorithm', 'AES']);
  const tail = await svc(['audit', 'tail', '-n', '3', '--key', key.id], env);
  t.equal(tail.code, 0, tail.stderr);
  t.match(tail.out, new RegExp(`alice\\(Human\\)  Create  ${key.id}  Success`));

  const follow = svcUntil(
    ['audit', 'tail', '--follow', '--interval', '1', '--key', key.id, '--op', 'Activate'],
    env,
    new RegExp(`Activate  ${key.id}  Success`),
  );
  t.teardown(() => follow.child.kill());
  await json(['keys', 'activate', key.id]);
  t.match(await follow.matched, /alice\(Human\) {2}Activate/);
});

t.test(
  'audit tail --follow does not print its own polling queries, and a reader that stops early ends it quietly',
  async (t) => {
    const key = await json(['keys', 'create', '--name', 'unfiltered-tail', '--algorithm', 'AES']);
    const follow = svcUntil(
      ['audit', 'tail', '--follow', '--interval', '1'],
      env,
      new RegExp(`Create  ${key.id}  Success`),
    );
    t.teardown(() => follow.child.kill());
    await follow.matched;
    // The poll that printed the create wrote its own Query record before answering; the poll that prints
    // the activate would print that record too if the tail echoed its queries. The listener is attached
    // before the activate, so a poll that prints its line at once (a fast machine) is not missed.
    const until = new RegExp(`Activate  ${key.id}  Success`);
    const printed = new Promise<string>((resolve) => {
      let out = '';
      follow.child.stdout!.on('data', (d: Buffer) => {
        out += d;
        if (until.test(out)) resolve(out);
      });
    });
    await json(['keys', 'activate', key.id]);
    const text = await printed;
    t.notMatch(text, / {2}Query {2}/, 'no Query record of the tail itself');

    const piped = svcUntil(['audit', 'tail', '--follow', '--interval', '1'], env, /Success/);
    let stderr = '';
    piped.child.stderr!.on('data', (d: Buffer) => (stderr += d));
    await piped.matched;
    piped.child.stdout!.destroy(); // as `| head -1` does once it has its line
    const exited = new Promise<number | null>((resolve) => piped.child.on('exit', (code) => resolve(code)));
    await json(['keys', 'create', '--name', 'after-the-reader-left', '--algorithm', 'AES']);
    t.equal(await exited, 0, 'the next write finds the pipe closed and the command ends with 0');
    t.notMatch(stderr, /EPIPE|Error/, 'without a stack trace');
  },
);

t.test('svc --help | head -1 ends quietly', async (t) => {
  const { spawn } = await import('node:child_process');
  const { SVC_BIN } = await import('../helpers/cli.ts');
  const child = spawn(SVC_BIN, ['--help'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.destroy();
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d));
  t.equal(await new Promise((resolve) => child.on('close', resolve)), 0);
  t.equal(stderr, '');
});

t.test('dev mode: SVC_USER (or --user) names the caller', async (t) => {
  const dev = await startTestService();
  t.teardown(() => dev.stop());
  const devEnv = cliEnv(tempDir(), { SVC_SERVER: dev.url, SVC_USER: 'bob' });
  const created = await svc(['keys', 'create', '--name', 'bobs', '--algorithm', 'HMAC', '--json'], devEnv);
  t.equal(created.code, 0, created.stderr);
  const id = JSON.parse(created.out).id;
  const mine = await svc(['keys', 'list', '--mine'], devEnv);
  t.match(mine.out, new RegExp(`^${id}  PreActive\\s+HMAC\\s+v1  .*  bobs$`, 'm'));
  const carols = await svc(['keys', 'list', '--mine', '--user', 'carol'], devEnv);
  t.equal(carols.code, 0);
  t.notMatch(carols.out, id, "--mine shows the caller's own keys");
  const all = await svc(['keys', 'list', '--user', 'carol'], devEnv);
  t.match(all.out, id, 'without it, every key the caller may read (the dev policy: all)');
  t.match((await svc(['keys', 'list', '--owner', 'bob', '--user', 'carol'], devEnv)).out, id, '--owner');
});
