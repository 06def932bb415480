import { createHash, createPublicKey, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import t from 'tap';
import { bytes, child, enumeration, K, structure, text, type TtlvItem } from '../../plugins/doors/kmip/ttlv/index.ts';
import { kmipRequest, RawKmipClient, responseItems, startKmipService } from '../helpers/kmip.ts';

const T = K.Tag;
const O = K.Operation;
const R = K.ResultReason;

/** KMIP's Digested Data is the service's digestBase64: the hash signed as the algorithm would have hashed the message. */
t.test('KMIP Sign and SignatureVerify with Digested Data', async (t) => {
  const kmip = await startKmipService();
  t.teardown(() => kmip.stop());
  const admin = kmip.svc.client('admin');
  const client = await RawKmipClient.connect(
    kmip.port,
    readFileSync(kmip.pki.caFile),
    kmip.identity('signer', '/CN=signer'),
  );
  t.teardown(() => client.close());
  const one = async (operation: number, payload: TtlvItem[]) =>
    responseItems(await client.request(kmipRequest([1, 4], [{ operation, payload }])))[0]!;
  const sha384WithRsa = structure(T.CryptographicParameters, [
    enumeration(T.DigitalSignatureAlgorithm, K.DigitalSignatureAlgorithm.Sha384WithRsaEncryption),
  ]);

  const rsa = await admin.key({ algorithm: 'RSA', sizeBits: 2048 });
  const message = Buffer.from('signed by its digest over KMIP');
  const digest = createHash('sha384').update(message).digest();
  const signed = await one(O.Sign, [text(T.UniqueIdentifier, rsa), sha384WithRsa, bytes(T.DigestedData, digest)]);
  t.equal(signed.status, K.ResultStatus.Success, JSON.stringify(signed.message));
  const signature = (child(signed.payload, T.SignatureData) as { value: Buffer }).value;
  const publicKey = createPublicKey((await admin.get(`/v1/keys/${rsa}/public-key`)).body.publicKeyPem);
  t.ok(verify('sha384', message, publicKey, signature), 'SHA384withRSA over the message verifies the signature');

  const check = async (hashed: Buffer) => {
    const answer = await one(O.SignatureVerify, [
      text(T.UniqueIdentifier, `${rsa}-public`),
      sha384WithRsa,
      bytes(T.DigestedData, hashed),
      bytes(T.SignatureData, signature),
    ]);
    return (child(answer.payload, T.ValidityIndicator) as { value: number }).value;
  };
  t.equal(await check(digest), K.ValidityIndicator.Valid, 'SignatureVerify with the digest');
  const other = Buffer.from(digest);
  other[0]! ^= 1;
  t.equal(await check(other), K.ValidityIndicator.Invalid, 'another digest is not valid');

  const rest = await admin.post(`/v1/keys/${rsa}/verify`, {
    messageBase64: message.toString('base64'),
    signatureBase64: signature.toString('base64'),
    algorithm: 'RsaPkcs1Sha384',
  });
  t.same(rest.body, { valid: true, algorithm: 'RsaPkcs1Sha384', keyVersion: 1 }, 'and REST verifies it by message');

  t.match(
    await one(O.Sign, [
      text(T.UniqueIdentifier, rsa),
      sha384WithRsa,
      bytes(T.Data, message),
      bytes(T.DigestedData, digest),
    ]),
    { reason: R.InvalidField, message: /Data .* or Digested Data .*, not both/ },
    'Data and Digested Data together are refused',
  );
  t.match(
    await one(O.Sign, [text(T.UniqueIdentifier, rsa), sha384WithRsa, bytes(T.DigestedData, digest.subarray(0, 32))]),
    { reason: R.InvalidField, message: /48-byte SHA-384 hash .* not 32 bytes/ },
    'a digest of the wrong length is refused',
  );
  const ed = await admin.key({ algorithm: 'EdDSA' });
  t.match(
    await one(O.Sign, [text(T.UniqueIdentifier, ed), bytes(T.DigestedData, createHash('sha256').update('m').digest())]),
    { reason: R.InvalidField, message: /Ed25519 signs the message itself/ },
    'Ed25519 refuses a digest',
  );
});
