import { createHmac, createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, verify } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
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
const files = tempDir('svc-cli-material-');
const json = svcJson(env);

t.test(
  'keys import reads raw material from a file, wraps it locally and ' +
    'imports it; keys export writes it back to a 0600 file',
  async (t) => {
    const material = randomBytes(32);
    const file = path.join(files, 'hmac.key');
    writeFileSync(file, material);
    const imported = await json([
      'keys',
      'import',
      '--name',
      'from-file',
      '--algorithm',
      'HMAC',
      '--material-file',
      file,
      '--exportable',
    ]);
    t.match(imported, {
      state: 'PreActive',
      origin: 'imported',
      spec: { algorithm: 'HMAC', sizeBits: 256, exportable: true },
    });
    await json(['keys', 'activate', imported.id]);
    const signed = await json(['keys', 'sign', imported.id, '--message', 'hello']);
    t.equal(
      signed.signatureBase64,
      createHmac('sha256', material).update('hello').digest('base64'),
      'the imported key computes what node:crypto computes with the file',
    );
    const out = path.join(files, 'exported.key');
    t.match(await json(['keys', 'export', imported.id, '--out', out]), {
      id: imported.id,
      keyVersion: 1,
      format: 'raw',
      out,
    });
    t.same(readFileSync(out), material, 'export writes the same bytes');
    t.equal(statSync(out).mode & 0o777, 0o600, 'readable by its owner only');
    const again = await svc(['keys', 'export', imported.id, '--out', out], env);
    t.equal(again.code, 2, 'an existing file is never overwritten');
    t.match(again.stderr, /EEXIST/);
    const piped = await svc(['keys', 'export', imported.id, '--out', '-'], env);
    t.same(piped.stdout, material, '--out - writes the bytes to stdout');
  },
);

t.test(
  'keys import takes a private key as openssl writes it (PEM); signatures verify with its public key',
  async (t) => {
    const pair = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const file = path.join(files, 'ec.pem');
    writeFileSync(file, pair.privateKey.export({ type: 'sec1', format: 'pem' }));
    const imported = await json([
      'keys',
      'import',
      '--name',
      'ec-from-pem',
      '--algorithm',
      'EC',
      '--curve',
      'P-256',
      '--material-file',
      file,
    ]);
    await json(['keys', 'activate', imported.id]);
    const signed = await json(['keys', 'sign', imported.id, '--message', 'hello']);
    t.ok(
      verify(
        'sha256',
        Buffer.from('hello'),
        createPublicKey(pair.privateKey),
        Buffer.from(signed.signatureBase64, 'base64'),
      ),
    );
    const exportable = await json([
      'keys',
      'create',
      '--name',
      'made-exportable',
      '--algorithm',
      'EdDSA',
      '--exportable',
    ]);
    t.equal(exportable.spec.exportable, true, 'keys create --exportable');
    await json(['keys', 'activate', exportable.id]);
    const out = path.join(files, 'ed25519.der');
    await json(['keys', 'export', exportable.id, '--out', out]);
    t.equal(
      createPublicKey(createPrivateKey({ key: readFileSync(out), format: 'der', type: 'pkcs8' })).export({
        type: 'spki',
        format: 'pem',
      }),
      (await json(['keys', 'public-key', exportable.id])).publicKeyPem,
      'the exported PKCS#8 DER is the key',
    );
  },
);

t.test("refusals reach the user with the service's reason", async (t) => {
  const file = path.join(files, 'short.key');
  writeFileSync(file, randomBytes(16));
  const wrong = await svc(['keys', 'import', '--name', 'short', '--algorithm', 'AES', '--material-file', file], env);
  t.equal(wrong.code, 1);
  t.match(wrong.stderr, /InvalidField.*16 bytes; AES-256 material is 32 raw bytes/);
  const missing = await svc(
    ['keys', 'import', '--name', 'x', '--algorithm', 'AES', '--material-file', path.join(files, 'nope')],
    env,
  );
  t.equal(missing.code, 2);
  t.match(missing.stderr, /cannot read --material-file .*ENOENT/);
  const plain = await json(['keys', 'create', '--name', 'plain', '--algorithm', 'AES']);
  await json(['keys', 'activate', plain.id]);
  const refused = await svc(['keys', 'export', plain.id, '--out', path.join(files, 'never')], env);
  t.equal(refused.code, 1);
  t.match(refused.stderr, /IllegalOperation.*not exportable/);
});
