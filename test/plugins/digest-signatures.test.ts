import {
  constants,
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPair,
  generatePrimeSync,
  type KeyObject,
  sign,
  verify,
} from 'node:crypto';
import { promisify } from 'node:util';
import t from 'tap';
import { signData, verifyData } from '../../plugins/keys/crypto/digest-signatures.ts';

/**
 * The digest path checked against node's own (OpenSSL's) message signatures, beyond what the service's
 * key sizes reach: moduli of 8n + 1 bits put a zero byte in front of EMSA-PSS's encoding.
 */

const generate = promisify(generateKeyPair);
const keyOf = async (type: 'rsa' | 'ec', options: object) => {
  const { privateKey } = (await generate(type as 'rsa', options as { modulusLength: number })) as {
    privateKey: KeyObject;
  };
  return { privateKey, publicKey: createPublicKey(privateKey) };
};
const HASHES = ['256', '384', '512'] as const;

/**
 * An RSA key whose modulus has 8n + 1 bits, which OpenSSL's generator never makes (it rounds odd sizes
 * down): built from two primes, so EMSA-PSS's leading zero byte is exercised.
 */
function rsaKeyOf2049Bits() {
  const inverse = (a: bigint, m: bigint) => {
    let [r0, r1, s0, s1] = [a % m, m, 1n, 0n];
    while (r1 !== 0n) {
      const q = r0 / r1;
      [r0, r1, s0, s1] = [r1, r0 - q * r1, s1, s0 - q * s1];
    }
    return ((s0 % m) + m) % m;
  };
  const b64url = (n: bigint) => {
    const hex = n.toString(16);
    return Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex').toString('base64url');
  };
  const e = 65537n;
  for (;;) {
    const p = generatePrimeSync(1025, { bigint: true });
    const q = generatePrimeSync(1024, { bigint: true });
    const n = p * q;
    const phi = (p - 1n) * (q - 1n);
    if (n.toString(2).length !== 2049 || phi % e === 0n) continue;
    const d = inverse(e, phi);
    const jwk = {
      kty: 'RSA',
      n: b64url(n),
      e: b64url(e),
      d: b64url(d),
      p: b64url(p),
      q: b64url(q),
      dp: b64url(d % (p - 1n)),
      dq: b64url(d % (q - 1n)),
      qi: b64url(inverse(q, p)),
    };
    const privateKey = createPrivateKey({ key: jwk, format: 'jwk' });
    return { privateKey, publicKey: createPublicKey(privateKey) };
  }
}
const pss = (key: KeyObject, saltLength: number) => ({ key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength });

t.test('RSA-PSS over a digest is a PSS signature of the message, for moduli of any length', async (t) => {
  for (const bits of [2049, 2050, 2056, 4096]) {
    const key = bits === 2049 ? rsaKeyOf2049Bits() : await keyOf('rsa', { modulusLength: bits });
    t.equal(key.publicKey.asymmetricKeyDetails?.modulusLength, bits);
    for (const h of HASHES) {
      const message = Buffer.from(`PSS ${bits} SHA-${h}`);
      const digest = createHash(`sha${h}`).update(message).digest();
      const signed = await signData(`RsaPssSha${h}`, key, { kind: 'digest', bytes: digest });
      t.equal(signed.length, Math.ceil(bits / 8));
      t.ok(verify(`sha${h}`, message, pss(key.publicKey, digest.length), signed), `${bits} SHA-${h}: node verifies it`);
      const again = await signData(`RsaPssSha${h}`, key, { kind: 'digest', bytes: digest });
      t.not(again.toString('hex'), signed.toString('hex'), 'a fresh salt each time');
      const byNode = sign(`sha${h}`, message, pss(key.privateKey, digest.length));
      t.ok(verifyData(`RsaPssSha${h}`, key, { kind: 'digest', bytes: digest }, byNode), "node's signature verifies");
      const otherSalt = sign(`sha${h}`, message, pss(key.privateKey, 20));
      t.notOk(
        verifyData(`RsaPssSha${h}`, key, { kind: 'digest', bytes: digest }, otherSalt),
        'a salt of another length is not the service algorithm',
      );
    }
  }
});

t.test('RSA PKCS#1 v1.5 over a digest is byte for byte the signature of the message', async (t) => {
  const key = await keyOf('rsa', { modulusLength: 2048 });
  for (const h of HASHES) {
    const message = Buffer.from(`PKCS1 SHA-${h}`);
    const digest = createHash(`sha${h}`).update(message).digest();
    const signed = await signData(`RsaPkcs1Sha${h}`, key, { kind: 'digest', bytes: digest });
    t.same(signed, sign(`sha${h}`, message, key.privateKey), `SHA-${h}: deterministic, identical to node's`);
    t.ok(verifyData(`RsaPkcs1Sha${h}`, key, { kind: 'digest', bytes: digest }, signed));
    for (const [what, bad] of [
      ['one byte short', signed.subarray(1)],
      ['not below the modulus', Buffer.alloc(signed.length, 0xff)],
      ['all zero', Buffer.alloc(signed.length)],
    ] as const)
      t.notOk(verifyData(`RsaPkcs1Sha${h}`, key, { kind: 'digest', bytes: digest }, bad), `${what}: not valid`);
  }
});

t.test("ECDSA over a digest verifies with node, and node's high-S signatures verify by digest", async (t) => {
  const curves = ['prime256v1', 'secp384r1', 'secp521r1', 'secp256k1'];
  for (const namedCurve of curves) {
    const key = await keyOf('ec', { namedCurve });
    for (const h of HASHES) {
      const message = Buffer.from(`ECDSA ${namedCurve} SHA-${h}`);
      const digest = createHash(`sha${h}`).update(message).digest();
      const signed = await signData(`EcdsaSha${h}`, key, { kind: 'digest', bytes: digest });
      t.ok(verify(`sha${h}`, message, key.publicKey, signed), `${namedCurve} SHA-${h}: node verifies it`);
      // OpenSSL's s is above half the order about half of the time: 16 signatures all but surely include one.
      for (let i = 0; i < 16; i++) {
        const byNode = sign(`sha${h}`, message, key.privateKey);
        if (!verifyData(`EcdsaSha${h}`, key, { kind: 'digest', bytes: digest }, byNode))
          throw new Error(`${namedCurve} SHA-${h}: a signature by node did not verify by digest`);
      }
      t.notOk(verifyData(`EcdsaSha${h}`, key, { kind: 'digest', bytes: digest }, Buffer.from('3000', 'hex')));
    }
  }
});
