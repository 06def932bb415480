import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import t, { type Test } from 'tap';
import { bytes, enumeration, integer, K, structure, text, type TtlvItem } from '../../plugins/doors/kmip/ttlv/index.ts';
import type { ApiResponse } from '../helpers/client.ts';
import {
  kmipRequest,
  RawKmipClient,
  responseItems,
  startKmipService,
  type KmipItemAnswer,
  type KmipService,
} from '../helpers/kmip.ts';

const T = K.Tag;
const O = K.Operation;
const R = K.ResultReason;
const UNKNOWN = '00000000-0000-4000-8000-000000000000';
const uid = (id: string) => text(T.UniqueIdentifier, id);
const attr = (name: string, value: TtlvItem) => structure(T.Attribute, [text(T.AttributeName, name), value]);
const aes = (length: number, name: string) => [
  enumeration(T.ObjectType, K.ObjectType.SymmetricKey),
  structure(T.TemplateAttribute, [
    attr('Cryptographic Algorithm', enumeration(T.AttributeValue, K.CryptographicAlgorithm.Aes)),
    attr('Cryptographic Length', integer(T.AttributeValue, length)),
    attr('Name', structure(T.AttributeValue, [text(T.NameValue, name), enumeration(T.NameType, 1)])),
  ]),
];

async function one(
  kmip: KmipService,
  subject: string,
  operation: number,
  payload: TtlvItem[],
): Promise<KmipItemAnswer> {
  const client = await RawKmipClient.connect(
    kmip.port,
    readFileSync(kmip.pki.caFile),
    kmip.identity(subject.replace(/\W/g, '-'), `/CN=${subject}`),
  );
  try {
    return responseItems(await client.request(kmipRequest([1, 4], [{ operation, payload }])))[0]!;
  } finally {
    client.close();
  }
}

type Case = [kind: string, reason: number, kmip: () => Promise<KmipItemAnswer>, rest: () => Promise<ApiResponse>];

/**
 * Each case refused over KMIP and over REST by the same subject: the Result Message is the REST message, never blank.
 */
async function check(t: Test, cases: Case[]): Promise<void> {
  for (const [kind, reason, viaKmip, viaRest] of cases) {
    const item = await viaKmip();
    const rest = await viaRest();
    t.match(item, { status: K.ResultStatus.OperationFailed, reason }, `${kind}: the mapped Result Reason`);
    t.ok(rest.status >= 400, `${kind}: REST refuses it too (${rest.status} ${rest.body.error})`);
    t.ok((item.message ?? '').trim().length > 0, `${kind}: a Result Message`);
    t.equal(item.message, rest.body.message, `${kind}: the REST message`);
  }
}

t.test("every refusal's Result Message is the REST API's message for it", async (t) => {
  const kmip = await startKmipService({
    SVC_POLICY_KIND: 'role-based',
    SVC_POLICY_SUBJECT_BINDINGS: JSON.stringify({
      billing: ['Create', 'Get', 'Activate', 'Encrypt', 'Decrypt', 'Sign', 'Export'],
      reader: ['Get'],
      admin: ['Query'],
    }),
  });
  t.teardown(() => kmip.stop());
  const billing = kmip.svc.client('billing');
  const reader = kmip.svc.client('reader');
  const preActive = await billing.key({ name: 'refusals-preactive', algorithm: 'AES', sizeBits: 256 }, false);
  const active = await billing.key({ name: 'refusals-active', algorithm: 'AES', sizeBits: 256 });
  const iv8 = randomBytes(8);
  const [iv, tag] = [randomBytes(12), randomBytes(16)];
  await check(t, [
    [
      'PermissionDenied',
      R.PermissionDenied,
      () => one(kmip, 'reader', O.Activate, [uid(preActive)]),
      () => reader.post(`/v1/keys/${preActive}/activate`),
    ],
    [
      'KeyNotFound',
      R.ItemNotFound,
      () => one(kmip, 'billing', O.GetAttributes, [uid(UNKNOWN)]),
      () => billing.get(`/v1/keys/${UNKNOWN}`),
    ],
    [
      'KeyNotFound (not a UUID)',
      R.ItemNotFound,
      () => one(kmip, 'billing', O.GetAttributes, [uid('nope')]),
      () => billing.get('/v1/keys/nope'),
    ],
    [
      'IllegalOperation (state)',
      R.WrongKeyLifecycleState,
      () => one(kmip, 'billing', O.Encrypt, [uid(preActive), bytes(T.Data, Buffer.from('x'))]),
      () => billing.post(`/v1/keys/${preActive}/raw-encrypt`, { plaintextBase64: 'eA==' }),
    ],
    [
      'IllegalOperation (not exportable)',
      R.WrongKeyLifecycleState,
      () => one(kmip, 'billing', O.Get, [uid(active)]),
      () => billing.post(`/v1/keys/${active}/export`, {}),
    ],
    [
      'InvalidField (IV length)',
      R.InvalidField,
      () =>
        one(kmip, 'billing', O.Decrypt, [
          uid(active),
          bytes(T.Data, Buffer.from('xyz')),
          bytes(T.IvCounterNonce, iv8),
          bytes(T.AuthenticatedEncryptionTag, tag),
        ]),
      () =>
        billing.post(`/v1/keys/${active}/raw-decrypt`, {
          ciphertextBase64: 'eHl6',
          ivBase64: iv8.toString('base64'),
          tagBase64: tag.toString('base64'),
        }),
    ],
    [
      'InvalidField (key spec)',
      R.InvalidField,
      () => one(kmip, 'billing', O.Create, aes(100, 'refusals-size')),
      () => billing.post('/v1/keys', { spec: { name: 'refusals-size', algorithm: 'AES', sizeBits: 100 } }),
    ],
    [
      'InvalidField (algorithm)',
      R.InvalidField,
      () =>
        one(kmip, 'billing', O.Mac, [
          uid(active),
          bytes(T.Data, Buffer.from('x')),
          structure(T.CryptographicParameters, [
            enumeration(T.CryptographicAlgorithm, K.CryptographicAlgorithm.HmacSha256),
          ]),
        ]),
      () => billing.post(`/v1/keys/${active}/sign`, { messageBase64: 'eA==', algorithm: 'HmacSha256' }),
    ],
    [
      'DecryptionFailed',
      R.CryptographicFailure,
      () =>
        one(kmip, 'billing', O.Decrypt, [
          uid(active),
          bytes(T.Data, Buffer.from('xyz')),
          bytes(T.IvCounterNonce, iv),
          bytes(T.AuthenticatedEncryptionTag, tag),
        ]),
      () =>
        billing.post(`/v1/keys/${active}/raw-decrypt`, {
          ciphertextBase64: 'eHl6',
          ivBase64: iv.toString('base64'),
          tagBase64: tag.toString('base64'),
        }),
    ],
    [
      'Unauthorized (a reserved subject)',
      R.AuthenticationNotSuccessful,
      () => one(kmip, 'svc-system', O.Locate, []),
      () => kmip.svc.client('svc-system').get('/v1/keys'),
    ],
  ]);

  t.test("the door's own protocol refusals, which have no REST counterpart, still say why", async (t) => {
    const unsupported = await one(kmip, 'billing', O.Certify, []);
    t.match(unsupported, { reason: R.OperationNotSupported, message: /Certify is not served/ });
    const client = await RawKmipClient.connect(
      kmip.port,
      readFileSync(kmip.pki.caFile),
      kmip.identity('billing', '/CN=billing'),
    );
    t.teardown(() => client.close());
    t.match(responseItems(await client.request(kmipRequest([3, 0], [{ operation: O.Query, payload: [] }]))), [
      { reason: R.UnsupportedProtocolVersion, message: /3\.0 is not served/ },
    ]);
    t.match(responseItems(await client.request(structure(T.ResponseMessage, []))), [
      { reason: R.InvalidMessage, message: /not a Request Message/ },
    ]);
  });

  t.test(
    'a Key Format Type the door does not serve is refused before anything is exported, and audited as the refusal',
    async (t) => {
      const exportable = await billing.key({
        name: 'refusals-exportable',
        algorithm: 'AES',
        sizeBits: 256,
        exportable: true,
      });
      const item = await one(kmip, 'billing', O.Get, [
        uid(exportable),
        enumeration(T.KeyFormatType, K.KeyFormatType.Pkcs8),
      ]);
      t.match(item, { reason: R.KeyFormatTypeNotSupported, message: 'symmetric keys are served as Raw' });
      const trail = (await kmip.svc.client('admin').auditOf(exportable)).filter((r: any) => r.context.door === 'kmip');
      t.match(
        trail.map((r: any) => `${r.operation} ${r.outcome}`),
        ['Get Success', 'Export InvalidField'],
        'the key read, then the refused export: no export recorded as done',
      );
    },
  );
});

t.test('rate limits and the risk decision: the REST message too', async (t) => {
  const kmip = await startKmipService({
    SVC_RATE_LIMIT_RPS: '1',
    SVC_RATE_LIMIT_BURST: '1',
    SVC_RISK_GATE_KINDS: 'Human,Service',
    SVC_RISK_STEP_UP: '0',
    SVC_RISK_DENY: '1',
  });
  t.teardown(() => kmip.stop());
  const stepper = kmip.svc.client('stepper');
  const limited = kmip.svc.client('limited');
  await check(t, [
    [
      'StepUpRequired',
      R.OperationCanceledByRequester,
      () => one(kmip, 'stepper', O.GetAttributes, [uid(UNKNOWN)]),
      () => stepper.get(`/v1/keys/${UNKNOWN}`),
    ],
    [
      'TooManyRequests',
      R.GeneralFailure,
      async () => (await one(kmip, 'limited', O.Locate, []), one(kmip, 'limited', O.Locate, [])),
      async () => (await limited.get('/v1/keys'), limited.get('/v1/keys')),
    ],
  ]);
});
