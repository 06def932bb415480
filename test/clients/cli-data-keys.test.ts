import t from 'tap';
import { cliEnv, svc, svcJson } from '../helpers/cli.ts';
import { startTestService, tempDir } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

const service = await startTestService({ SVC_AUTH_KIND: 'hmac', SVC_AUTH_HMAC_SECRET: TEST_SECRET });
t.teardown(() => service.stop());
const env = cliEnv(tempDir('svc-cli-home-'), {
  SVC_SERVER: service.url,
  SVC_TOKEN: await mintToken({ sub: 'alice' }, { ttlSeconds: 3600 }),
});
const json = svcJson(env);
const activeKey = async (name: string) => {
  const key = await json(['keys', 'create', '--name', name, '--algorithm', 'AES']);
  await json(['keys', 'activate', key.id]);
  return key.id as string;
};

t.test('svc keys data-key: a data key and its ciphertext, which decrypt opens', async (t) => {
  const id = await activeKey('cli-envelope');
  const made = await json(['keys', 'data-key', id, '--size-bits', '192', '--context', 'file=a']);
  t.equal(Buffer.from(made.plaintextBase64, 'base64').length, 24);
  t.match(made, { keyVersion: 1, algorithm: 'AesGcm256' });
  const opened = await json(['keys', 'decrypt', id, '--message-base64', made.ciphertextBase64, '--context', 'file=a']);
  t.equal(opened.plaintextBase64, made.plaintextBase64);
  const sealedOnly = await json(['keys', 'data-key', id, '--no-plaintext']);
  t.notOk('plaintextBase64' in sealedOnly, '--no-plaintext leaves the data key out');
  const bad = await svc(['keys', 'data-key', id, '--size-bits', '512'], env);
  t.equal(bad.code, 2, 'a size the service does not make is a usage error');
  t.match(bad.stderr, /--size-bits must be 128, 192 or 256/);
  const help = await svc(['keys', 'data-key', '--help'], env);
  t.match(help.out, /Examples:\n\s+\$ svc keys data-key/);
});

t.test('svc keys reencrypt: to the current version and to another key, through stdin and stdout', async (t) => {
  const source = await activeKey('cli-source');
  const destination = await activeKey('cli-destination');
  const sealed = await svc(
    ['keys', 'encrypt', source, '--context', 'tenant=acme', '--out', '-'],
    env,
    Buffer.from('moved, never shown'),
  );
  t.equal(sealed.code, 0, sealed.stderr);
  await json(['keys', 'rotate', source]);
  const again = await json(['keys', 'reencrypt', source, '--context', 'tenant=acme'], sealed.stdout);
  t.match(again, { keyVersion: 2, sourceKeyVersion: 1 });
  t.notOk(
    JSON.stringify(again).includes(Buffer.from('moved, never shown').toString('base64')),
    'no plaintext in the output',
  );
  const moved = await svc(
    [
      'keys',
      'reencrypt',
      source,
      '--context',
      'tenant=acme',
      '--destination',
      destination,
      '--destination-context',
      'tenant=globex',
      '--out',
      '-',
    ],
    env,
    sealed.stdout,
  );
  t.equal(moved.code, 0, moved.stderr);
  const opened = await svc(
    ['keys', 'decrypt', destination, '--context', 'tenant=globex', '--out', '-'],
    env,
    moved.stdout,
  );
  t.equal(opened.out, 'moved, never shown');
  const wrong = await svc(['keys', 'reencrypt', source, '--context', 'tenant=other'], env, sealed.stdout);
  t.equal(wrong.code, 1);
  t.match(wrong.stderr, /DecryptionFailed/);
});
