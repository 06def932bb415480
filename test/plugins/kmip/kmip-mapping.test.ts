import t from 'tap';
import { SvcError } from '../../../kernel/index.ts';
import { clientPrincipal } from '../../../plugins/doors/kmip/client-principal.ts';
import { requestedSpec } from '../../../plugins/doors/kmip/key-attributes.ts';
import { encodeResponse, parseRequest } from '../../../plugins/doors/kmip/messages.ts';
import { signatureAlgorithm } from '../../../plugins/doors/kmip/operations/crypto.ts';
import { failureOf, KmipRejection } from '../../../plugins/doors/kmip/result-reasons.ts';
import {
  decodeTtlv,
  encodeTtlv,
  enumeration,
  integer,
  K,
  structure,
  text,
} from '../../../plugins/doors/kmip/ttlv/index.ts';
import { kmipRequest } from '../../helpers/kmip.ts';

const T = K.Tag;
const params = (...items: Array<[number, number]>) =>
  structure(
    T.CryptographicParameters,
    items.map(([tag, v]) => enumeration(tag, v)),
  );

t.test('Result Reasons: each REST error as the KMIP contract maps it, the REST message kept', async (t) => {
  const R = K.ResultReason;
  const cases: Array<[ConstructorParameters<typeof SvcError>[0], number]> = [
    ['PermissionDenied', R.PermissionDenied],
    ['KeyNotFound', R.ItemNotFound],
    ['IllegalOperation', R.WrongKeyLifecycleState],
    ['InvalidField', R.InvalidField],
    ['BadRequest', R.InvalidMessage],
    ['DecryptionFailed', R.CryptographicFailure],
    ['StepUpRequired', R.OperationCanceledByRequester],
    ['TooManyRequests', R.GeneralFailure],
    ['InternalError', R.GeneralFailure],
  ];
  for (const [code, reason] of cases)
    t.same(failureOf(new SvcError(code, `the ${code} message`)), { reason, message: `the ${code} message` }, code);
  t.same(failureOf(new KmipRejection(R.KeyFormatTypeNotSupported, 'x')), {
    reason: R.KeyFormatTypeNotSupported,
    message: 'x',
  });
  t.match(
    new KmipRejection(R.KeyFormatTypeNotSupported, 'x'),
    { code: 'InvalidField' },
    'audited by the pipeline as the InvalidField it is',
  );
  t.same(
    failureOf(new Error('secret internals')),
    { reason: R.GeneralFailure, message: 'internal error; the service log has details under this request id' },
    'an unexpected error says nothing of itself: the REST message',
  );
  t.same(
    failureOf(new SvcError('PermissionDenied', ' ')),
    {
      reason: R.PermissionDenied,
      message:
        'PermissionDenied: policy refusal, risk Deny (message prefix "risk: "), non-human on a human-only endpoint',
    },
    "a blank message (a plugin policy's empty reason) is never answered blank",
  );
});

t.test('signature algorithms from Cryptographic Parameters', async (t) => {
  const H = K.HashingAlgorithm;
  t.equal(signatureAlgorithm(undefined), undefined, "none: the key's default");
  t.equal(
    signatureAlgorithm(params([T.PaddingMethod, K.PaddingMethod.Pss], [T.HashingAlgorithm, H.Sha384])),
    'RsaPssSha384',
  );
  t.equal(
    signatureAlgorithm(params([T.DigitalSignatureAlgorithm, K.DigitalSignatureAlgorithm.RsassaPss])),
    'RsaPssSha256',
  );
  t.equal(
    signatureAlgorithm(params([T.DigitalSignatureAlgorithm, K.DigitalSignatureAlgorithm.Sha256WithRsaEncryption])),
    'RsaPkcs1Sha256',
  );
  t.equal(
    signatureAlgorithm(
      params([T.CryptographicAlgorithm, K.CryptographicAlgorithm.Ecdsa], [T.HashingAlgorithm, H.Sha512]),
    ),
    'EcdsaSha512',
  );
  t.equal(signatureAlgorithm(params([T.CryptographicAlgorithm, K.CryptographicAlgorithm.HmacSha384])), 'HmacSha384');
  t.throws(() => signatureAlgorithm(params([T.HashingAlgorithm, H.Md5])), { code: 'InvalidField' });
  t.throws(() => signatureAlgorithm(params([T.DigitalSignatureAlgorithm, K.DigitalSignatureAlgorithm.DsaWithSha256])), {
    code: 'InvalidField',
  });
  t.equal(
    signatureAlgorithm(params([T.PaddingMethod, K.PaddingMethod.Pkcs1v15], [T.HashingAlgorithm, H.Sha512])),
    'RsaPkcs1Sha512',
  );
  t.equal(signatureAlgorithm(params([T.PaddingMethod, K.PaddingMethod.Pkcs1v15])), 'RsaPkcs1Sha256');
  t.equal(
    signatureAlgorithm(params([T.DigitalSignatureAlgorithm, K.DigitalSignatureAlgorithm.Sha384WithRsaEncryption])),
    'RsaPkcs1Sha384',
  );
  t.equal(
    signatureAlgorithm(params([T.DigitalSignatureAlgorithm, K.DigitalSignatureAlgorithm.Sha512WithRsaEncryption])),
    'RsaPkcs1Sha512',
  );
  t.throws(
    () => signatureAlgorithm(params([T.DigitalSignatureAlgorithm, K.DigitalSignatureAlgorithm.Sha1WithRsaEncryption])),
    { code: 'InvalidField', message: /SHA256\/384\/512withRSA/ },
  );
});

t.test('key specs from KMIP algorithm, length and curve', async (t) => {
  const A = K.CryptographicAlgorithm;
  t.same(requestedSpec(A.Aes, 128, undefined), { algorithm: 'AES', sizeBits: 128 });
  t.same(requestedSpec(A.Rsa, 3072, undefined), { algorithm: 'RSA', sizeBits: 3072 });
  t.same(requestedSpec(A.Ecdsa, 521, undefined), { algorithm: 'EC', curve: 'P-521' });
  t.same(requestedSpec(A.Ec, undefined, K.RecommendedCurve.P384), { algorithm: 'EC', curve: 'P-384' });
  t.same(requestedSpec(A.HmacSha512, 512, undefined), { algorithm: 'HMAC', sizeBits: 512 });
  t.same(requestedSpec(A.Ed25519, undefined, undefined), { algorithm: 'EdDSA', curve: 'Ed25519' });
  t.same(requestedSpec(A.Ed448, undefined, undefined), { algorithm: 'EdDSA', curve: 'Ed448' });
  t.throws(() => requestedSpec(A.Ecdsa, 224, undefined), { code: 'InvalidField' });
  t.throws(() => requestedSpec(A.TripleDes, 192, undefined), { code: 'InvalidField' });
  t.throws(() => requestedSpec(undefined, 256, undefined), { code: 'InvalidField', message: /required/ });
});

t.test('the caller from the client certificate', async (t) => {
  t.same(clientPrincipal({ subject: { CN: 'billing', O: 'acme' } } as never), {
    kind: 'Service',
    subject: 'billing',
    tenant: 'acme',
    groups: [],
  });
  t.match(clientPrincipal({ subject: {} } as never), { refused: /no usable subject CN/ });
  t.match(clientPrincipal({ subject: { CN: 'bad\u0000name' } } as never), { refused: /no usable subject CN/ });
  t.match(clientPrincipal({ subject: { CN: 'svc-system' } } as never), { refused: /reserved/ });
  t.match(clientPrincipal(undefined), { refused: /no usable/ });
});

t.test(
  'a client certificate CN holding a line break, a C1 control or an invisible character authenticates no one',
  async (t) => {
    // Each would split a log or export line in two, or show in the audit trail as another subject (svc-system).
    for (const cn of [
      'billing\u0085forged line',
      'billing\u2028forged line',
      'billing\u2029x',
      'a\u009b31mred',
      'svc-system\u200b',
      '\u202esvc-system',
    ]) {
      t.match(
        clientPrincipal({ subject: { CN: cn } } as never),
        { refused: /no usable subject CN/ },
        cn.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
      );
    }
    t.same(
      clientPrincipal({ subject: { CN: 'billing', O: 'acme\u2028other' } } as never),
      { kind: 'Service', subject: 'billing', groups: [] },
      'nor is such an O a tenant',
    );
    t.same(
      clientPrincipal({ subject: { CN: 'Zoë Müller-Łukasz 日本' } } as never),
      { kind: 'Service', subject: 'Zoë Müller-Łukasz 日本', groups: [] },
      'letters of any script are fine',
    );
  },
);

t.test(
  'a client certificate CN that reads as svc-system after NFKC, dash and case folding authenticates no one',
  async (t) => {
    // Each was written to the audit trail as an actor a reader took for the service itself.
    for (const cn of ['svc-system ', 'svc\u2010system', 'SVC-SYSTEM', 'ｓｖｃ－ｓｙｓｔｅｍ', ' Svc\u2212System']) {
      t.match(
        clientPrincipal({ subject: { CN: cn } } as never),
        { refused: /reserved for the service itself/ },
        JSON.stringify(cn),
      );
    }
    t.match(
      clientPrincipal({ subject: { CN: 'AGENT-0B9C6F3E-2D1A-4C5B-8E7F-1A2B3C4D5E6F' } } as never),
      { refused: /agent ids/ },
      'an agent id in capitals',
    );
    t.same(
      clientPrincipal({ subject: { CN: 'svc-systems' } } as never),
      { kind: 'Service', subject: 'svc-systems', groups: [] },
      'another name is fine',
    );
  },
);

t.test("a client certificate CN shaped like one of the service's agent ids authenticates no one", async (t) => {
  // Otherwise its calls would be written, scanned by the advisor and answered by the auto-responder as the agent's.
  t.match(clientPrincipal({ subject: { CN: 'agent-0b9c6f3e-2d1a-4c5b-8e7f-1a2b3c4d5e6f' } } as never), {
    refused: /agent/,
  });
  t.same(
    clientPrincipal({ subject: { CN: 'agent-smith' } } as never),
    { kind: 'Service', subject: 'agent-smith', groups: [] },
    'a name that merely starts so is fine',
  );
});

t.test(
  'a client certificate with two CNs or two Os authenticates no one: which one names the caller would be a guess',
  async (t) => {
    // A CA that checks the last CN (as Go's crypto/x509 reads a name) while the door took the first would let a
    // certificate approved for one subject act as another.
    t.match(clientPrincipal({ subject: { CN: ['billing', 'admin'] } } as never), { refused: /more than one/ });
    t.match(clientPrincipal({ subject: { CN: 'billing', O: ['acme', 'globex'] } } as never), {
      refused: /more than one/,
    });
  },
);

t.test("requests: header and batch checks; responses in the request's version", async (t) => {
  const request = parseRequest(
    encodeTtlv(
      kmipRequest(
        [1, 4],
        [
          { operation: K.Operation.Query, payload: [] },
          { operation: K.Operation.Get, payload: [] },
        ],
      ),
    ),
  );
  t.same(request.version, { major: 1, minor: 4 });
  t.same(
    request.items.map((i) => i.operation),
    [K.Operation.Query, K.Operation.Get],
  );
  t.equal(request.correlation, undefined, 'no Client Correlation Value');
  const correlated = kmipRequest([1, 4], [{ operation: K.Operation.Query, payload: [] }]);
  (correlated as { value: Array<{ value: unknown[] }> }).value[0]!.value.push(text(T.ClientCorrelationValue, 'job-42'));
  t.equal(
    parseRequest(encodeTtlv(correlated)).correlation,
    'job-42',
    "the Client Correlation Value, for the audit record's correlation id",
  );
  const wrongCount = kmipRequest([1, 2], [{ operation: K.Operation.Query, payload: [] }]);
  (wrongCount as { value: Array<{ value: unknown[] }> }).value[0]!.value[1] = integer(T.BatchCount, 2);
  t.throws(() => parseRequest(encodeTtlv(wrongCount)), { name: 'InvalidMessage', message: /Batch Count/ });
  t.throws(
    () =>
      parseRequest(
        encodeTtlv(
          kmipRequest(
            [1, 2],
            Array.from({ length: 101 }, () => ({ operation: K.Operation.Query, payload: [] })),
          ),
        ),
      ),
    { message: /at most 100 batch items/ },
  );
  const response = decodeTtlv(
    encodeResponse({ major: 2, minor: 0 }, [{ operation: K.Operation.Query, payload: [] }], new Date(0)),
  );
  t.equal(response.tag, T.ResponseMessage);
  t.match(
    JSON.stringify(response, (_, v) => (typeof v === 'bigint' ? String(v) : v)),
    /"value":2}.*"value":0}/,
    'protocol version 2.0 in the header',
  );
});
