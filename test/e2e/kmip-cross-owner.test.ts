import { readFileSync } from 'node:fs';
import t from 'tap';
import {
  bytes,
  child,
  enumeration,
  integer,
  K,
  structure,
  text,
  type TtlvItem,
} from '../../plugins/doors/kmip/ttlv/index.ts';
import { kmipRequest, RawKmipClient, responseItems, startKmipService } from '../helpers/kmip.ts';

const T = K.Tag;
const O = K.Operation;
const R = K.ResultReason;
const ALL = [
  'Create',
  'Get',
  'Locate',
  'Activate',
  'Revoke',
  'Destroy',
  'Rotate',
  'Encrypt',
  'Decrypt',
  'Sign',
  'Verify',
  'Compromise',
  'GetAttributes',
];
const OWN = { operations: ALL, keys: ['owner:self'] };

t.test(
  "a client certificate acts only on its own keys: every KMIP operation on another owner's key is refused and audited",
  async (t) => {
    const kmip = await startKmipService({
      SVC_POLICY_KIND: 'role-based',
      SVC_POLICY_SUBJECT_BINDINGS: JSON.stringify({ billing: OWN, mallory: OWN, auditor: ['Query'] }),
    });
    t.teardown(() => kmip.stop());
    const ca = readFileSync(kmip.pki.caFile);
    const billing = await RawKmipClient.connect(kmip.port, ca, kmip.identity('billing', '/CN=billing/O=acme'));
    const mallory = await RawKmipClient.connect(kmip.port, ca, kmip.identity('mallory', '/CN=mallory/O=evil'));
    t.teardown(() => (billing.close(), mallory.close()));
    const one = async (client: RawKmipClient, operation: number, payload: TtlvItem[]) =>
      responseItems(await client.request(kmipRequest([1, 4], [{ operation, payload }])))[0]!;
    const attr = (name: string, value: TtlvItem) => structure(T.Attribute, [text(T.AttributeName, name), value]);

    const pair = await one(billing, O.CreateKeyPair, [
      structure(T.CommonTemplateAttribute, [
        attr('Cryptographic Algorithm', enumeration(T.AttributeValue, K.CryptographicAlgorithm.Ec)),
        attr('Cryptographic Length', integer(T.AttributeValue, 256)),
        attr('Name', structure(T.AttributeValue, [text(T.NameValue, 'billing-secret'), enumeration(T.NameType, 1)])),
        attr('Extractable', { tag: T.AttributeValue, type: 'Boolean', value: true }),
      ]),
    ]);
    t.equal(pair.status, K.ResultStatus.Success, JSON.stringify(pair.message));
    const id = (child(pair.payload, T.PrivateKeyUniqueIdentifier) as { value: string }).value;
    t.equal((await one(billing, O.Activate, [text(T.UniqueIdentifier, id)])).status, K.ResultStatus.Success);
    const aes = await one(billing, O.Create, [
      enumeration(T.ObjectType, K.ObjectType.SymmetricKey),
      structure(T.TemplateAttribute, [
        attr('Cryptographic Algorithm', enumeration(T.AttributeValue, K.CryptographicAlgorithm.Aes)),
        attr('Cryptographic Length', integer(T.AttributeValue, 256)),
      ]),
    ]);
    const aesId = (child(aes.payload, T.UniqueIdentifier) as { value: string }).value;

    const uid = (u: string) => text(T.UniqueIdentifier, u);
    const attempts: Array<[string, number, TtlvItem[]]> = [
      ['Get private', O.Get, [uid(id)]],
      ['Get public', O.Get, [uid(`${id}-public`)]],
      ['GetAttributes', O.GetAttributes, [uid(id)]],
      ['GetAttributes public', O.GetAttributes, [uid(`${id}-public`)]],
      ['GetAttributeList', O.GetAttributeList, [uid(id)]],
      ['Sign', O.Sign, [uid(id), bytes(T.Data, Buffer.from('m'))]],
      [
        'SignatureVerify',
        O.SignatureVerify,
        [uid(`${id}-public`), bytes(T.Data, Buffer.from('m')), bytes(T.SignatureData, Buffer.alloc(64))],
      ],
      ['Encrypt', O.Encrypt, [uid(aesId), bytes(T.Data, Buffer.from('m'))]],
      ['Activate', O.Activate, [uid(aesId)]],
      ['Rekey', O.Rekey, [uid(id)]],
      ['Revoke', O.Revoke, [uid(id), structure(T.RevocationReason, [enumeration(T.RevocationReasonCode, 1)])]],
      ['Destroy', O.Destroy, [uid(aesId)]],
    ];
    for (const [name, operation, payload] of attempts) {
      const answer = await one(mallory, operation, payload);
      t.equal(answer.status, K.ResultStatus.OperationFailed, `${name}: refused`);
      t.ok(
        answer.reason === R.PermissionDenied || answer.reason === R.ItemNotFound,
        `${name}: Permission Denied or Item Not Found (${answer.reason} ${answer.message})`,
      );
    }
    const located = await one(mallory, O.Locate, [
      attr('Name', structure(T.AttributeValue, [text(T.NameValue, 'billing-secret'), enumeration(T.NameType, 1)])),
    ]);
    t.same(located.payload?.type === 'Structure' ? located.payload.value : [], [], "Locate finds nothing of billing's");
    const placeholder = responseItems(
      await mallory.request(
        kmipRequest(
          [1, 4],
          [
            { operation: O.Locate, payload: [] },
            { operation: O.Get, payload: [] },
          ],
        ),
      ),
    );
    t.notMatch(JSON.stringify(placeholder), new RegExp(id), 'a batch Locate then Get reveals nothing either');
    const attributes = await one(billing, O.GetAttributes, [uid(id), text(T.AttributeName, 'State')]);
    t.match(JSON.stringify(attributes.payload), `"value":${K.State.Active}`, 'the key is still Active for its owner');
    const trail = (await kmip.svc.client('auditor').auditOf(id)).filter((r: any) => r.principal.subject === 'mallory');
    t.ok(
      trail.length >= 6 && trail.every((r: any) => r.context.door === 'kmip' && r.outcome === 'PermissionDenied'),
      `mallory's attempts are audited as refused: ${JSON.stringify(trail.map((r: any) => [r.operation, r.outcome]))}`,
    );
  },
);
