import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { startTestService } from '../helpers/service.ts';

/**
 * A digest signed over REST is the signature the message would have had: OpenSSL verifies it over the
 * digest (pkeyutl) and over the message (dgst), REST verify accepts it with the message, and a
 * signature of the message verifies with its digest. A changed digest or signature fails everywhere.
 */

const run = promisify(execFile);
const svc = await startTestService();
t.teardown(() => svc.stop());
const api = svc.client();

const RSA = ['RsaPssSha256', 'RsaPssSha384', 'RsaPssSha512', 'RsaPkcs1Sha256', 'RsaPkcs1Sha384', 'RsaPkcs1Sha512'];
const ECDSA = ['EcdsaSha256', 'EcdsaSha384', 'EcdsaSha512'];
const KEYS: Array<[Record<string, unknown>, string[]]> = [
  [{ algorithm: 'RSA', sizeBits: 2048 }, RSA],
  [{ algorithm: 'RSA', sizeBits: 3072 }, RSA],
  [{ algorithm: 'EC', curve: 'P-256' }, ECDSA],
  [{ algorithm: 'EC', curve: 'P-384' }, ECDSA],
  [{ algorithm: 'EC', curve: 'P-521' }, ECDSA],
  [{ algorithm: 'EC', curve: 'secp256k1' }, ECDSA],
];

const hashOf = (algorithm: string) => `sha${algorithm.slice(-3)}`;
/**
 * The bytes with one bit changed in the first byte: ECDSA uses only as many leading bits of a digest as
 * its order has (a SHA-512 digest on P-256: the first 256), so a change further on is no change to it.
 */
const flipped = (bytes: Buffer) => {
  const copy = Buffer.from(bytes);
  copy[0]! ^= 0x01;
  return copy;
};
/** A signature with one bit of its last byte changed: of s for ECDSA (DER's framing stays intact). */
const flippedSignature = (sig: Buffer) => {
  const copy = Buffer.from(sig);
  copy[copy.length - 1]! ^= 0x01;
  return copy;
};

/** OpenSSL's exit code for a command (0: verified). */
async function openssl(dir: string, args: string[]): Promise<number> {
  try {
    await run('openssl', args, { cwd: dir });
    return 0;
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code !== 'number') throw err;
    return code;
  }
}

/** Both OpenSSL checks of `sig` against the key in dir/pub.pem: over the digest, and over the message. */
async function opensslVerifies(dir: string, algorithm: string, digest: Buffer, message: Buffer, sig: Buffer) {
  const hash = hashOf(algorithm);
  const pss = algorithm.startsWith('RsaPss');
  writeFileSync(path.join(dir, 'digest.bin'), digest);
  writeFileSync(path.join(dir, 'msg.bin'), message);
  writeFileSync(path.join(dir, 'sig.bin'), sig);
  const pkeyopt = pss ? ['-pkeyopt', 'rsa_padding_mode:pss', '-pkeyopt', 'rsa_pss_saltlen:digest'] : [];
  const sigopt = pss ? ['-sigopt', 'rsa_padding_mode:pss', '-sigopt', 'rsa_pss_saltlen:digest'] : [];
  const overDigest = await openssl(dir, [
    'pkeyutl',
    '-verify',
    '-pubin',
    '-inkey',
    'pub.pem',
    '-in',
    'digest.bin',
    '-sigfile',
    'sig.bin',
    '-pkeyopt',
    `digest:${hash}`,
    ...pkeyopt,
  ]);
  const overMessage = await openssl(dir, [
    'dgst',
    `-${hash}`,
    ...sigopt,
    '-verify',
    'pub.pem',
    '-signature',
    'sig.bin',
    'msg.bin',
  ]);
  return { overDigest, overMessage };
}

for (const [spec, algorithms] of KEYS) {
  t.test(`${JSON.stringify(spec)}: digests signed with ${algorithms.join(', ')}`, async (t) => {
    const id = await api.key(spec);
    const dir = mkdtempSync(path.join(svc.dir, 'digest-'));
    const pub = await api.get(`/v1/keys/${id}/public-key`);
    t.equal(pub.status, 200);
    writeFileSync(path.join(dir, 'pub.pem'), pub.body.publicKeyPem);
    for (const algorithm of algorithms) {
      const message = Buffer.concat([Buffer.from(`${algorithm} over ${JSON.stringify(spec)}: `), randomBytes(40)]);
      const digest = createHash(hashOf(algorithm)).update(message).digest();
      const digestBase64 = digest.toString('base64');
      const messageBase64 = message.toString('base64');

      const signed = await api.post(`/v1/keys/${id}/sign`, { digestBase64, algorithm });
      t.equal(signed.status, 200, `${algorithm}: the digest is signed`);
      t.same(Object.keys(signed.body).sort(), ['algorithm', 'keyVersion', 'signatureBase64']);
      t.match(signed.body, { algorithm, keyVersion: 1 });
      const sig = Buffer.from(signed.body.signatureBase64, 'base64');
      t.same(
        await opensslVerifies(dir, algorithm, digest, message, sig),
        { overDigest: 0, overMessage: 0 },
        `${algorithm}: OpenSSL verifies the signature over the digest and over the message`,
      );
      const asMessage = await api.post(`/v1/keys/${id}/verify`, {
        messageBase64,
        signatureBase64: signed.body.signatureBase64,
        algorithm,
      });
      t.same(
        asMessage.body,
        { valid: true, algorithm, keyVersion: 1 },
        `${algorithm}: REST verifies it as the message's`,
      );

      const overMessage = await api.post(`/v1/keys/${id}/sign`, { messageBase64, algorithm });
      const asDigest = await api.post(`/v1/keys/${id}/verify`, {
        digestBase64,
        signatureBase64: overMessage.body.signatureBase64,
        algorithm,
      });
      t.same(
        asDigest.body,
        { valid: true, algorithm, keyVersion: 1 },
        `${algorithm}: a message's signature verifies by digest`,
      );
      const ownDigest = await api.post(`/v1/keys/${id}/verify`, {
        digestBase64,
        signatureBase64: signed.body.signatureBase64,
        algorithm,
      });
      t.same(ownDigest.body, { valid: true, algorithm, keyVersion: 1 }, `${algorithm}: and by digest`);

      // A changed digest or signature: OpenSSL refuses both checks, REST answers valid:false.
      const otherDigest = flipped(digest);
      const otherSig = flippedSignature(sig);
      const tamperedDigest = await opensslVerifies(dir, algorithm, otherDigest, flipped(message), sig);
      t.not(tamperedDigest.overDigest, 0, `${algorithm}: OpenSSL refuses a changed digest`);
      t.not(tamperedDigest.overMessage, 0, `${algorithm}: OpenSSL refuses a changed message`);
      const tamperedSig = await opensslVerifies(dir, algorithm, digest, message, otherSig);
      t.not(tamperedSig.overDigest, 0, `${algorithm}: OpenSSL refuses a changed signature over the digest`);
      t.not(tamperedSig.overMessage, 0, `${algorithm}: OpenSSL refuses a changed signature over the message`);
      for (const [what, body] of [
        [
          'a changed digest',
          { digestBase64: otherDigest.toString('base64'), signatureBase64: signed.body.signatureBase64 },
        ],
        ['a changed signature by digest', { digestBase64, signatureBase64: otherSig.toString('base64') }],
        ['a changed signature by message', { messageBase64, signatureBase64: otherSig.toString('base64') }],
        [
          "a message's signature with a changed digest",
          { digestBase64: otherDigest.toString('base64'), signatureBase64: overMessage.body.signatureBase64 },
        ],
      ] as const) {
        const res = await api.post(`/v1/keys/${id}/verify`, { ...body, algorithm });
        t.equal(res.status, 200);
        t.same(res.body, { valid: false, algorithm }, `${algorithm}: ${what} is not valid`);
      }
    }
  });
}

t.test("a digest signed with the key's default algorithm, and after a rotation by an older version", async (t) => {
  const id = await api.key({ algorithm: 'EC', curve: 'P-384' });
  const digest = createHash('sha384').update('defaults').digest();
  const signed = await api.post(`/v1/keys/${id}/sign`, { digestBase64: digest.toString('base64') });
  t.match(signed.body, { algorithm: 'EcdsaSha384', keyVersion: 1 }, "the key's own algorithm, as for a message");
  await api.post(`/v1/keys/${id}/rotate`, {});
  const verified = await api.post(`/v1/keys/${id}/verify`, {
    messageBase64: Buffer.from('defaults').toString('base64'),
    signatureBase64: signed.body.signatureBase64,
  });
  t.same(verified.body, { valid: true, algorithm: 'EcdsaSha384', keyVersion: 1 }, 'version 1 still verifies');
});
