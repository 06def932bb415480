import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { cliEnv, svc, svcJson } from '../helpers/cli.ts';
import { startTestService, tempDir } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

// The key commands, in a file of their own beside cli.test.ts: each file starts its own service and stays
// well inside the per-file time limit on a loaded machine.
const service = await startTestService({ SVC_AUTH_KIND: 'hmac', SVC_AUTH_HMAC_SECRET: TEST_SECRET });
t.teardown(() => service.stop());
const alice = await mintToken({ sub: 'alice' }, { ttlSeconds: 3600 });
const home = tempDir('svc-cli-home-');
const env = cliEnv(home, { SVC_SERVER: service.url, SVC_TOKEN: alice });
const json = svcJson(env);

t.test('destroy --waiting-days, cancel-destroy and trim --min-version', async (t) => {
  const key = await json(['keys', 'create', '--name', 'retiring', '--algorithm', 'AES']);
  await json(['keys', 'activate', key.id]);
  await json(['keys', 'rotate', key.id]);
  t.match(await json(['keys', 'trim', key.id, '--min-version', '2']), { minVersion: 2, erasure: 'complete' });
  const past = await svc(['keys', 'trim', key.id, '--min-version', '3'], env);
  t.equal(past.code, 1, 'trim past the current version is refused by the service');
  t.match(past.stderr, /past the current version/);
  await json(['keys', 'revoke', key.id]);
  const scheduled = await json(['keys', 'destroy', key.id, '--waiting-days', '7']);
  t.match(scheduled, { state: 'Deactivated', destroyAt: /^\d{4}-/ });
  t.match(await json(['keys', 'get', key.id]), { destroyAt: scheduled.destroyAt, minVersion: 2 });
  t.match(await json(['keys', 'cancel-destroy', key.id]), { cancelledDestroyAt: scheduled.destroyAt });
  const bad = await svc(['keys', 'destroy', key.id, '--waiting-days', 'soon'], env);
  t.equal(bad.code, 2);
  t.match(bad.stderr, /--waiting-days must be a whole number/);
  t.equal((await json(['keys', 'destroy', key.id, '--waiting-days', '0'])).state, 'Destroyed');
});

t.test('encrypt and decrypt a file through stdin and stdout, byte for byte', async (t) => {
  const key = await json(['keys', 'create', '--name', 'files', '--algorithm', 'AES']);
  await json(['keys', 'activate', key.id]);
  const file = randomBytes(20_000);
  const sealed = await svc(
    ['keys', 'encrypt', key.id, '--context', 'tenant=acme', '--context', 'purpose=backup', '--out', '-'],
    env,
    file,
  );
  t.equal(sealed.code, 0, sealed.stderr);
  t.notOk(sealed.stdout.includes(file.subarray(0, 64)), 'the output is not the plaintext');
  const opened = await svc(
    ['keys', 'decrypt', key.id, '--context', 'purpose=backup', '--context', 'tenant=acme', '--out', '-'],
    env,
    sealed.stdout,
  );
  t.equal(opened.code, 0, opened.stderr);
  t.ok(opened.stdout.equals(file), 'decrypt gives back the same bytes');
  const wrongContext = await svc(
    ['keys', 'decrypt', key.id, '--context', 'tenant=evil', '--out', '-'],
    env,
    sealed.stdout,
  );
  t.equal(wrongContext.code, 1);
  t.equal(wrongContext.stdout.length, 0);
  t.match(wrongContext.stderr, /DecryptionFailed/);

  const text = await json(['keys', 'encrypt', key.id, '--message', 'hello']);
  const back = await json(['keys', 'decrypt', key.id, '--message-base64', text.ciphertextBase64]);
  t.equal(Buffer.from(back.plaintextBase64, 'base64').toString(), 'hello');
});

t.test('wrap and unwrap a data key through files', async (t) => {
  const dir = tempDir();
  const key = await json(['keys', 'create', '--name', 'kek', '--algorithm', 'AES']);
  await json(['keys', 'activate', key.id]);
  const dek = randomBytes(32);
  writeFileSync(path.join(dir, 'dek.bin'), dek);
  const wrapped = await svc(
    ['keys', 'wrap', key.id, '--file', path.join(dir, 'dek.bin'), '--out', path.join(dir, 'dek.wrapped')],
    env,
  );
  t.equal(wrapped.code, 0, wrapped.stderr);
  t.notOk(readFileSync(path.join(dir, 'dek.wrapped')).includes(dek));
  const unwrapped = await svc(
    ['keys', 'unwrap', key.id, '--file', path.join(dir, 'dek.wrapped'), '--out', path.join(dir, 'dek.out')],
    env,
  );
  t.equal(unwrapped.code, 0, unwrapped.stderr);
  t.ok(readFileSync(path.join(dir, 'dek.out')).equals(dek));
  const asText = await json(['keys', 'wrap', key.id, '--message-base64', dek.toString('base64')]);
  t.equal(
    (await json(['keys', 'unwrap', key.id, '--message-base64', asText.wrappedDekBase64])).dekBase64,
    dek.toString('base64'),
  );
});

t.test('keys list: filters, a limit, every page, read from the journal and not the audit trail', async (t) => {
  const dev = await startTestService({ SVC_AUDIT_KIND: 'stdout' });
  t.teardown(() => dev.stop());
  const devEnv = cliEnv(tempDir(), { SVC_SERVER: dev.url, SVC_USER: 'erin' });
  const made: string[] = [];
  for (let i = 0; i < 4; i++)
    made.push(
      JSON.parse((await svc(['keys', 'create', '--name', `list-${i}`, '--algorithm', 'AES', '--json'], devEnv)).out).id,
    );
  await svc(['keys', 'activate', made[1]!], devEnv);
  const rows = async (...args: string[]) => {
    const r = await svc(['keys', 'list', ...args, '--json'], devEnv);
    t.equal(r.code, 0, r.stderr);
    return r.out
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l).id);
  };
  t.same(
    await rows('--name', 'list-*'),
    [...made].reverse(),
    'a glob, newest first, with a stdout audit sink (no audit query needed)',
  );
  t.same(await rows('--name', 'list-*', '--state', 'Active'), [made[1]]);
  t.same(await rows('--name', 'list-2'), [made[2]]);
  t.same(await rows('--name', 'list-*', '--limit', '3'), [made[3], made[2], made[1]], '--limit');
  const bad = await svc(['keys', 'list', '--state', 'Gone'], devEnv);
  t.equal(bad.code, 1);
  t.match(bad.stderr, /InvalidField \(HTTP 400\)/);
  t.equal(
    (await svc(['keys', 'list', '--mine', '--owner', 'x'], devEnv)).code,
    2,
    '--mine and --owner together: usage error',
  );
});
