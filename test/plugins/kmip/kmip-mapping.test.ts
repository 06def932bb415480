import t from 'tap';
import { SvcError } from '../../../kernel/index.ts';
import { clientPrincipal } from '../../../plugins/kmip/client-principal.ts';
import { requestedSpec } from '../../../plugins/kmip/key-attributes.ts';
import { encodeResponse, parseRequest } from '../../../plugins/kmip/messages.ts';
import { signatureAlgorithm } from '../../../plugins/kmip/operations/crypto.ts';
import { failureOf, KmipRefusal } from '../../../plugins/kmip/result-reasons.ts';
import { decodeTtlv, encodeTtlv, enumeration, integer, K, structure } from '../../../plugins/kmip/ttlv/index.ts';
import { kmipRequest } from '../../helpers/kmip.ts';

const T = K.Tag;
const params = (...items: Array<[number, number]>) => structure(T.CryptographicParameters, items.map(([tag, v]) => enumeration(tag, v)));

t.test('Result Reasons: each REST error as the KMIP contract maps it, the REST message kept', async (t) => {
  const R = K.ResultReason;
  const cases: Array<[ConstructorParameters<typeof SvcError>[0], number]> = [
    ['PermissionDenied', R.PermissionDenied], ['KeyNotFound', R.ItemNotFound], ['IllegalOperation', R.WrongKeyLifecycleState],
    ['InvalidField', R.InvalidField], ['BadRequest', R.InvalidMessage], ['DecryptionFailed', R.CryptographicFailure],
    ['StepUpRequired', R.OperationCanceledByRequester], ['TooManyRequests', R.GeneralFailure], ['InternalError', R.GeneralFailure],
  ];
  for (const [code, reason] of cases) t.same(failureOf(new SvcError(code, `the ${code} message`)), { reason, message: `the ${code} message` }, code);
  t.same(failureOf(new KmipRefusal(R.KeyFormatTypeNotSupported, 'x')), { reason: R.KeyFormatTypeNotSupported, message: 'x' });
  t.same(failureOf(new Error('secret internals')), { reason: R.GeneralFailure, message: 'internal error; the service log has details' }, 'an unexpected error says nothing of itself');
});

t.test('signature algorithms from Cryptographic Parameters', async (t) => {
  const H = K.HashingAlgorithm;
  t.equal(signatureAlgorithm(undefined), undefined, 'none: the key\'s default');
  t.equal(signatureAlgorithm(params([T.PaddingMethod, K.PaddingMethod.Pss], [T.HashingAlgorithm, H.Sha384])), 'RsaPssSha384');
  t.equal(signatureAlgorithm(params([T.DigitalSignatureAlgorithm, K.DigitalSignatureAlgorithm.RsassaPss])), 'RsaPssSha256');
  t.equal(signatureAlgorithm(params([T.DigitalSignatureAlgorithm, K.DigitalSignatureAlgorithm.Sha256WithRsaEncryption])), 'RsaPkcs1Sha256');
  t.equal(signatureAlgorithm(params([T.CryptographicAlgorithm, K.CryptographicAlgorithm.Ecdsa], [T.HashingAlgorithm, H.Sha512])), 'EcdsaSha512');
  t.equal(signatureAlgorithm(params([T.CryptographicAlgorithm, K.CryptographicAlgorithm.HmacSha384])), 'HmacSha384');
  t.throws(() => signatureAlgorithm(params([T.HashingAlgorithm, H.Md5])), { code: 'InvalidField' });
  t.throws(() => signatureAlgorithm(params([T.DigitalSignatureAlgorithm, K.DigitalSignatureAlgorithm.DsaWithSha256])), { code: 'InvalidField' });
  t.throws(() => signatureAlgorithm(params([T.PaddingMethod, K.PaddingMethod.Pkcs1v15], [T.HashingAlgorithm, H.Sha512])), { code: 'InvalidField' });
});

t.test('key specs from KMIP algorithm, length and curve', async (t) => {
  const A = K.CryptographicAlgorithm;
  t.same(requestedSpec(A.Aes, 128, undefined), { algorithm: 'AES', sizeBits: 128 });
  t.same(requestedSpec(A.Rsa, 3072, undefined), { algorithm: 'RSA', sizeBits: 3072 });
  t.same(requestedSpec(A.Ecdsa, 521, undefined), { algorithm: 'EC', curve: 'P-521' });
  t.same(requestedSpec(A.Ec, undefined, K.RecommendedCurve.P384), { algorithm: 'EC', curve: 'P-384' });
  t.same(requestedSpec(A.HmacSha512, 512, undefined), { algorithm: 'HMAC', sizeBits: 512 });
  t.throws(() => requestedSpec(A.Ecdsa, 224, undefined), { code: 'InvalidField' });
  t.throws(() => requestedSpec(A.TripleDes, 192, undefined), { code: 'InvalidField' });
  t.throws(() => requestedSpec(undefined, 256, undefined), { code: 'InvalidField', message: /required/ });
});

t.test('the caller from the client certificate', async (t) => {
  t.same(clientPrincipal({ subject: { CN: 'billing', O: 'acme' } } as never), { kind: 'Service', subject: 'billing', tenant: 'acme', groups: [] });
  t.same(clientPrincipal({ subject: { CN: ['first', 'second'] } } as never), { kind: 'Service', subject: 'first', groups: [] });
  t.match(clientPrincipal({ subject: {} } as never), { refused: /no usable subject CN/ });
  t.match(clientPrincipal({ subject: { CN: 'bad\u0000name' } } as never), { refused: /no usable subject CN/ });
  t.match(clientPrincipal({ subject: { CN: 'svc-system' } } as never), { refused: /reserved/ });
  t.match(clientPrincipal(undefined), { refused: /no usable/ });
});

t.test('requests: header and batch checks; responses in the request\'s version', async (t) => {
  const request = parseRequest(encodeTtlv(kmipRequest([1, 4], [{ operation: K.Operation.Query, payload: [] }, { operation: K.Operation.Get, payload: [] }])));
  t.same(request.version, { major: 1, minor: 4 });
  t.same(request.items.map((i) => i.operation), [K.Operation.Query, K.Operation.Get]);
  const wrongCount = kmipRequest([1, 2], [{ operation: K.Operation.Query, payload: [] }]);
  (wrongCount as { value: Array<{ value: unknown[] }> }).value[0]!.value[1] = integer(T.BatchCount, 2);
  t.throws(() => parseRequest(encodeTtlv(wrongCount)), { name: 'InvalidMessage', message: /Batch Count/ });
  t.throws(() => parseRequest(encodeTtlv(kmipRequest([1, 2], Array.from({ length: 101 }, () => ({ operation: K.Operation.Query, payload: [] }))))), { message: /at most 100 batch items/ });
  const response = decodeTtlv(encodeResponse({ major: 2, minor: 0 }, [{ status: K.ResultStatus.Success, operation: K.Operation.Query, payload: [] }], new Date(0)));
  t.equal(response.tag, T.ResponseMessage);
  t.match(JSON.stringify(response, (_, v) => (typeof v === 'bigint' ? String(v) : v)), /"value":2}.*"value":0}/, 'protocol version 2.0 in the header');
});
