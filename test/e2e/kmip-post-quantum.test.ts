import { createPrivateKey, createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import t, { type Test } from 'tap';
import { PARAMETER_SETS, type ParameterSet } from '../../kernel/index.ts';
import { PQ_ALGORITHM_CODES } from '../../plugins/doors/kmip/key-attributes.ts';
import {
  boolean,
  bytes,
  child,
  children,
  enumeration,
  integer,
  K,
  structure,
  text,
  type TtlvItem,
} from '../../plugins/doors/kmip/ttlv/index.ts';
import {
  type KmipItemAnswer,
  type KmipService,
  kmipRequest,
  RawKmipClient,
  responseItems,
  startKmipService,
} from '../helpers/kmip.ts';
import { runtimeHasPostQuantum } from '../helpers/post-quantum.ts';

/**
 * ML-DSA and SLH-DSA keys over KMIP, with the door's own TTLV codec (PyKMIP knows neither): a set is named by
 * KMIP 3.0's Cryptographic Algorithm value for it (ML-DSA-44 0x3C ... SLH-DSA-SHAKE-256f 0x4A), in 1.4 and
 * 2.0 messages alike. On Node 24: CreateKeyPair, Register (PKCS#8), Get (X.509 public key, PKCS#8 private
 * key), GetAttributes, Sign and SignatureVerify of the message itself, Locate by Cryptographic Algorithm,
 * audited and refused as other keys are. On Node 20: CreateKeyPair and Register are Invalid Field naming
 * Node 24, with the REST API's message, and audited as refusals.
 */

t.setTimeout(600_000);

const T = K.Tag;
const O = K.Operation;
const R = K.ResultReason;
const S = K.ResultStatus;
const has = runtimeHasPostQuantum;
const MESSAGE = Buffer.from('firmware 7.1.0 for the door controllers');
const strength = (set: string) => (/-(44|128)/.test(set) ? 128 : /-(65|192)/.test(set) ? 192 : 256);
const uid = (id: string) => text(T.UniqueIdentifier, id);
const attr = (name: string, value: TtlvItem) => structure(T.Attribute, [text(T.AttributeName, name), value]);
const nameAttr = (value: string) =>
  attr(
    'Name',
    structure(T.AttributeValue, [
      text(T.NameValue, value),
      enumeration(T.NameType, K.NameType.UninterpretedTextString),
    ]),
  );
const algorithmAttr = (code: number) => attr('Cryptographic Algorithm', enumeration(T.AttributeValue, code));
const pqParams = (set: ParameterSet, more: TtlvItem[] = []) =>
  structure(T.CryptographicParameters, [enumeration(T.CryptographicAlgorithm, PQ_ALGORITHM_CODES[set]), ...more]);
const bytesIn = (item: TtlvItem | undefined) => (item?.type === 'ByteString' ? item.value : Buffer.alloc(0));
const numberIn = (item: TtlvItem | undefined) =>
  item?.type === 'Enumeration' || item?.type === 'Integer' ? item.value : undefined;
const textIn = (item: TtlvItem | undefined) => (item?.type === 'TextString' ? item.value : undefined);
const uidsIn = (payload: TtlvItem | undefined) => children(payload, T.UniqueIdentifier).map(textIn);

interface Session {
  one(operation: number, payload: TtlvItem[], version?: [number, number]): Promise<KmipItemAnswer>;
  close(): void;
}

async function session(kmip: KmipService, subject: string): Promise<Session> {
  const client = await RawKmipClient.connect(
    kmip.port,
    readFileSync(kmip.pki.caFile),
    kmip.identity(subject, `/CN=${subject}`),
  );
  return {
    one: async (operation, payload, version = [1, 4]) =>
      responseItems(await client.request(kmipRequest(version, [{ operation, payload }])))[0]!,
    close: () => client.close(),
  };
}

/** CreateKeyPair in KMIP 1.4 (Attribute structures in the Common Template-Attribute). */
const createKeyPair14 = (set: ParameterSet, name: string, extra: TtlvItem[] = []) => [
  structure(T.CommonTemplateAttribute, [algorithmAttr(PQ_ALGORITHM_CODES[set]), nameAttr(name), ...extra]),
];

/** Register of a PKCS#8 private key in KMIP 1.4. */
const register14 = (code: number, pkcs8: Buffer, name: string, format: number = K.KeyFormatType.Pkcs8) => [
  enumeration(T.ObjectType, K.ObjectType.PrivateKey),
  structure(T.TemplateAttribute, [nameAttr(name)]),
  structure(T.PrivateKey, [
    structure(T.KeyBlock, [
      enumeration(T.KeyFormatType, format),
      structure(T.KeyValue, [bytes(T.KeyMaterial, pkcs8)]),
      enumeration(T.CryptographicAlgorithm, code),
    ]),
  ]),
];

/** A 1.4 GetAttributes answer, by attribute name. */
function attributesOf(payload: TtlvItem | undefined): Map<string, TtlvItem> {
  const out = new Map<string, TtlvItem>();
  for (const a of children(payload, T.Attribute)) {
    const name = textIn(child(a, T.AttributeName));
    const value = child(a, T.AttributeValue);
    if (name && value) out.set(name, value);
  }
  return out;
}

const ok = (t: Test, answer: KmipItemAnswer, what: string) =>
  t.equal(answer.status, S.Success, `${what}${answer.status === S.Success ? '' : `: ${answer.message}`}`);

t.test("the values are KMIP 3.0's, from its Cryptographic Algorithm Enumeration", async (t) => {
  const spec: Record<string, number> = {
    'ML-DSA-44': 0x3c,
    'ML-DSA-65': 0x3d,
    'ML-DSA-87': 0x3e,
    'SLH-DSA-SHA2-128s': 0x3f,
    'SLH-DSA-SHA2-128f': 0x40,
    'SLH-DSA-SHA2-192s': 0x41,
    'SLH-DSA-SHA2-192f': 0x42,
    'SLH-DSA-SHA2-256s': 0x43,
    'SLH-DSA-SHA2-256f': 0x44,
    'SLH-DSA-SHAKE-128s': 0x45,
    'SLH-DSA-SHAKE-128f': 0x46,
    'SLH-DSA-SHAKE-192s': 0x47,
    'SLH-DSA-SHAKE-192f': 0x48,
    'SLH-DSA-SHAKE-256s': 0x49,
    'SLH-DSA-SHAKE-256f': 0x4a,
  };
  t.same({ ...PQ_ALGORITHM_CODES }, spec);
  const known = new Set(Object.values(K.CryptographicAlgorithm) as number[]);
  t.notOk(
    Object.values(spec).some((code) => known.has(code)),
    'none is a value KMIP 2.0 (the codec tables) already gives another algorithm',
  );
});

if (!has) {
  t.test('Node 20: CreateKeyPair and Register of ML-DSA or SLH-DSA are Invalid Field naming Node 24', async (t) => {
    const kmip = await startKmipService();
    t.teardown(() => kmip.stop());
    const signer = await session(kmip, 'pq-signer');
    t.teardown(() => signer.close());
    const rest = kmip.svc.client('pq-signer');
    for (const set of ['ML-DSA-65', 'SLH-DSA-SHA2-128s'] as const) {
      const algorithm = set.startsWith('ML-') ? 'ML-DSA' : 'SLH-DSA';
      const refused = await signer.one(O.CreateKeyPair, createKeyPair14(set, `pq-${set}`));
      t.match(refused, { status: S.OperationFailed, reason: R.InvalidField, message: /Node 24/ }, `${set} refused`);
      const viaRest = await rest.post('/v1/keys', { spec: { algorithm, parameterSet: set } });
      t.equal(viaRest.status, 400);
      t.equal(refused.message, viaRest.body.message, `${set}: the REST API's message`);
    }
    const v2 = await signer.one(
      O.CreateKeyPair,
      [structure(T.CommonAttributes, [enumeration(T.CryptographicAlgorithm, PQ_ALGORITHM_CODES['ML-DSA-87'])])],
      [2, 0],
    );
    t.match(v2, { reason: R.InvalidField, message: /ML-DSA keys need Node 24/ }, 'in KMIP 2.0 too');
    // The runtime cannot make a PQ key, so the material is another key's PKCS#8: the key type is refused first.
    const ed = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'der' });
    const registered = await signer.one(O.Register, register14(PQ_ALGORITHM_CODES['ML-DSA-44'], ed, 'pq-registered'));
    t.match(registered, { reason: R.InvalidField, message: /ML-DSA keys need Node 24/ }, 'Register refused');
    const located = await signer.one(O.Locate, [algorithmAttr(PQ_ALGORITHM_CODES['ML-DSA-65'])]);
    ok(t, located, 'Locate by an ML-DSA set answers');
    t.same(uidsIn(located.payload), [], 'and finds nothing');
    const ed25519 = await signer.one(O.CreateKeyPair, [
      structure(T.CommonTemplateAttribute, [algorithmAttr(K.CryptographicAlgorithm.Ed25519)]),
    ]);
    ok(t, ed25519, 'an Ed25519 key pair as before');
    const audit = await kmip.svc.client('admin').get('/v1/audit?actor=pq-signer&op=Create&limit=100');
    const refusals = audit.body.records
      .filter((r: any) => r.context.door === 'kmip' && r.outcome === 'InvalidField')
      .map((r: any) => r.context['kmip.operation'])
      .sort();
    t.same(refusals, ['CreateKeyPair', 'CreateKeyPair', 'CreateKeyPair', 'Register'], 'each refusal audited');
  });
} else {
  t.test('every set: CreateKeyPair, GetAttributes, Get, Sign and SignatureVerify', async (t) => {
    const kmip = await startKmipService();
    t.teardown(() => kmip.stop());
    const signer = await session(kmip, 'pq-signer');
    t.teardown(() => signer.close());
    for (const set of PARAMETER_SETS) {
      const code = PQ_ALGORITHM_CODES[set];
      const made = await signer.one(O.CreateKeyPair, createKeyPair14(set, `kmip-${set}`));
      ok(t, made, `${set}: CreateKeyPair`);
      const id = textIn(child(made.payload, T.PrivateKeyUniqueIdentifier))!;
      t.equal(textIn(child(made.payload, T.PublicKeyUniqueIdentifier)), `${id}-public`);
      const rest = (await kmip.svc.client('pq-signer').get(`/v1/keys/${id}`)).body;
      t.match(rest.spec, { algorithm: set.startsWith('ML-') ? 'ML-DSA' : 'SLH-DSA', parameterSet: set });
      ok(t, await signer.one(O.Activate, [uid(id)]), `${set}: Activate`);

      const attributes = attributesOf((await signer.one(O.GetAttributes, [uid(id)])).payload);
      t.equal(numberIn(attributes.get('Cryptographic Algorithm')), code, `${set}: its KMIP 3.0 value`);
      t.equal(numberIn(attributes.get('Cryptographic Length')), strength(set), `${set}: its security strength`);
      t.equal(numberIn(attributes.get('Object Type')), K.ObjectType.PrivateKey);
      t.equal(numberIn(attributes.get('Cryptographic Usage Mask')), K.CryptographicUsageMask.Sign);
      const publicAttributes = attributesOf((await signer.one(O.GetAttributes, [uid(`${id}-public`)])).payload);
      t.equal(numberIn(publicAttributes.get('Cryptographic Algorithm')), code);
      t.equal(numberIn(publicAttributes.get('Cryptographic Usage Mask')), K.CryptographicUsageMask.Verify);

      const got = await signer.one(O.Get, [uid(`${id}-public`)]);
      ok(t, got, `${set}: Get of the public key`);
      const block = child(child(got.payload, T.PublicKey), T.KeyBlock);
      t.equal(numberIn(child(block, T.KeyFormatType)), K.KeyFormatType.X509);
      t.equal(numberIn(child(block, T.CryptographicAlgorithm)), code);
      const publicKey = createPublicKey({
        key: bytesIn(child(child(block, T.KeyValue), T.KeyMaterial)),
        format: 'der',
        type: 'spki',
      });
      t.equal(publicKey.asymmetricKeyType, set.toLowerCase(), `${set}: the SPKI names the set`);

      const signed = await signer.one(O.Sign, [uid(id), bytes(T.Data, MESSAGE)]);
      ok(t, signed, `${set}: Sign without Cryptographic Parameters`);
      const signature = bytesIn(child(signed.payload, T.SignatureData));
      t.ok(verify(null, MESSAGE, publicKey, signature), `${set}: node:crypto verifies it from the X.509 key`);
      const check = async (data: Buffer, sig: Buffer, target = `${id}-public`) =>
        numberIn(
          child(
            (await signer.one(O.SignatureVerify, [uid(target), bytes(T.Data, data), bytes(T.SignatureData, sig)]))
              .payload,
            T.ValidityIndicator,
          ),
        );
      t.equal(await check(MESSAGE, signature), K.ValidityIndicator.Valid, `${set}: SignatureVerify`);
      const changed = Buffer.from(MESSAGE);
      changed[0]! ^= 1;
      t.equal(await check(changed, signature, id), K.ValidityIndicator.Invalid, `${set}: not for another message`);
    }
  });

  t.test('Cryptographic Parameters, KMIP 2.0, exportable keys, and the refusals', async (t) => {
    const kmip = await startKmipService();
    t.teardown(() => kmip.stop());
    const signer = await session(kmip, 'pq-signer');
    t.teardown(() => signer.close());
    const rest = kmip.svc.client('pq-signer');
    const made = await signer.one(
      O.CreateKeyPair,
      [
        structure(T.CommonAttributes, [
          enumeration(T.CryptographicAlgorithm, PQ_ALGORITHM_CODES['ML-DSA-65']),
          integer(T.CryptographicLength, 192),
          structure(T.Name, [text(T.NameValue, 'pq-v2'), enumeration(T.NameType, 1)]),
          boolean(T.Extractable, true),
        ]),
      ],
      [2, 0],
    );
    ok(t, made, 'KMIP 2.0 CreateKeyPair with Attributes, Cryptographic Length 192 and Extractable');
    const id = textIn(child(made.payload, T.PrivateKeyUniqueIdentifier))!;
    t.match((await rest.get(`/v1/keys/${id}`)).body.spec, {
      name: 'pq-v2',
      parameterSet: 'ML-DSA-65',
      sizeBits: 192,
      exportable: true,
    });
    ok(t, await signer.one(O.Activate, [uid(id)], [2, 0]), 'Activate');
    const signed = await signer.one(O.Sign, [uid(id), pqParams('ML-DSA-65'), bytes(T.Data, MESSAGE)], [2, 0]);
    ok(t, signed, 'Sign with Cryptographic Parameters naming the set, no hashing');
    const signature = bytesIn(child(signed.payload, T.SignatureData));
    const restVerify = await rest.post(`/v1/keys/${id}/verify`, {
      messageBase64: MESSAGE.toString('base64'),
      signatureBase64: signature.toString('base64'),
    });
    t.match(restVerify.body, { valid: true, algorithm: 'ML-DSA-65' }, 'REST verifies the KMIP signature');
    const restSigned = (await rest.post(`/v1/keys/${id}/sign`, { messageBase64: MESSAGE.toString('base64') })).body;
    const verified = await signer.one(O.SignatureVerify, [
      uid(`${id}-public`),
      pqParams('ML-DSA-65'),
      bytes(T.Data, MESSAGE),
      bytes(T.SignatureData, Buffer.from(restSigned.signatureBase64, 'base64')),
    ]);
    t.equal(
      numberIn(child(verified.payload, T.ValidityIndicator)),
      K.ValidityIndicator.Valid,
      'KMIP verifies the REST signature',
    );

    const exported = await signer.one(O.Get, [uid(id)], [2, 0]);
    ok(t, exported, 'Get of the exportable private key');
    const pkcs8 = bytesIn(
      child(child(child(child(exported.payload, T.PrivateKey), T.KeyBlock), T.KeyValue), T.KeyMaterial),
    );
    t.equal(createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' }).asymmetricKeyType, 'ml-dsa-65', 'PKCS#8');

    const messageOf = async (path: string, body: Record<string, unknown>) => (await rest.post(path, body)).body.message;
    const refusals: Array<[string, KmipItemAnswer, number, string | RegExp]> = [
      [
        'Digested Data',
        await signer.one(O.Sign, [uid(id), bytes(T.DigestedData, Buffer.alloc(32))]),
        R.InvalidField,
        await messageOf(`/v1/keys/${id}/sign`, { digestBase64: Buffer.alloc(32).toString('base64') }),
      ],
      [
        'another set in Cryptographic Parameters',
        await signer.one(O.Sign, [uid(id), pqParams('ML-DSA-44'), bytes(T.Data, MESSAGE)]),
        R.InvalidField,
        await messageOf(`/v1/keys/${id}/sign`, { messageBase64: MESSAGE.toString('base64'), algorithm: 'ML-DSA-44' }),
      ],
      [
        'a Hashing Algorithm with the set',
        await signer.one(O.Sign, [
          uid(id),
          pqParams('ML-DSA-65', [enumeration(T.HashingAlgorithm, K.HashingAlgorithm.Sha512)]),
          bytes(T.Data, MESSAGE),
        ]),
        R.InvalidField,
        /ML-DSA-65 signs the message itself: .* without Hashing Algorithm/,
      ],
      [
        'a Cryptographic Length that is not the set strength',
        await signer.one(
          O.CreateKeyPair,
          createKeyPair14('ML-DSA-44', 'pq-wrong-length', [
            attr('Cryptographic Length', integer(T.AttributeValue, 256)),
          ]),
        ),
        R.InvalidField,
        await messageOf('/v1/keys', { spec: { algorithm: 'ML-DSA', parameterSet: 'ML-DSA-44', sizeBits: 256 } }),
      ],
      [
        'Create (symmetric) of an ML-DSA key',
        await signer.one(O.Create, [
          enumeration(T.ObjectType, K.ObjectType.PrivateKey),
          structure(T.TemplateAttribute, [algorithmAttr(PQ_ALGORITHM_CODES['ML-DSA-44'])]),
        ]),
        R.InvalidField,
        /use CreateKeyPair for RSA, EC, EdDSA, ML-DSA and SLH-DSA/,
      ],
      [
        'PKCS#1 for the public key',
        await signer.one(O.Get, [uid(`${id}-public`), enumeration(T.KeyFormatType, K.KeyFormatType.Pkcs1)]),
        R.KeyFormatTypeNotSupported,
        /X\.509/,
      ],
    ];
    for (const [what, answer, reason, message] of refusals) {
      t.match(answer, { status: S.OperationFailed, reason }, `${what}: refused`);
      if (typeof message === 'string') t.equal(answer.message, message, `${what}: the REST API's message`);
      else t.match(answer.message, message, `${what}: ${answer.message}`);
    }
    t.match(refusals[0]![3], /signs the message itself/);
    t.match(refusals[1]![3], /does not fit/);

    const trail = (await kmip.svc.client('admin').auditOf(id)).filter(
      (r: any) => r.principal.subject === 'pq-signer' && r.context.door === 'kmip',
    );
    t.same(
      trail.map((r: any) => `${r.operation} ${r.context['kmip.operation']} ${r.outcome}`),
      [
        'Create CreateKeyPair Success',
        'Activate Activate Success',
        'Sign Sign Success',
        'Verify SignatureVerify Success',
        'Get Get Success',
        'Export Get Success',
        'Sign Sign InvalidField',
        'Sign Sign InvalidField',
        'Sign Sign InvalidField',
        'Get Get Success',
        'Get Get InvalidField',
      ],
      'audited as any key: one record per call, refusals included, with door kmip',
    );
    t.notOk(JSON.stringify(trail).includes(pkcs8.toString('base64')), 'the private key is in no audit record');

    ok(t, await signer.one(O.Rekey, [uid(id)]), 'ReKey');
    t.equal((await rest.get(`/v1/keys/${id}`)).body.currentVersion, 2, 'a new version under the same identifier');
    const afterRekey = await signer.one(O.SignatureVerify, [
      uid(`${id}-public`),
      bytes(T.Data, MESSAGE),
      bytes(T.SignatureData, signature),
    ]);
    t.equal(
      numberIn(child(afterRekey.payload, T.ValidityIndicator)),
      K.ValidityIndicator.Valid,
      'a signature of version 1 verifies after ReKey',
    );
    const secondVersion = await signer.one(O.Sign, [uid(id), bytes(T.Data, MESSAGE)]);
    const version2 = (await rest.get(`/v1/keys/${id}/public-key?version=2`)).body.publicKeyPem;
    t.ok(
      verify(null, MESSAGE, createPublicKey(version2), bytesIn(child(secondVersion.payload, T.SignatureData))),
      'Sign after ReKey signs with version 2',
    );
  });

  t.test('Register a PKCS#8 private key, and Locate by Cryptographic Algorithm', async (t) => {
    const kmip = await startKmipService();
    t.teardown(() => kmip.stop());
    const signer = await session(kmip, 'pq-signer');
    t.teardown(() => signer.close());
    const rest = kmip.svc.client('pq-signer');
    const pair = generateKeyPairSync('ml-dsa-44' as never) as unknown as ReturnType<typeof generateKeyPairSync>;
    const pkcs8 = pair.privateKey.export({ type: 'pkcs8', format: 'der' });
    const registered = await signer.one(O.Register, register14(PQ_ALGORITHM_CODES['ML-DSA-44'], pkcs8, 'pq-byok'));
    ok(t, registered, 'Register');
    const id = textIn(child(registered.payload, T.UniqueIdentifier))!;
    t.match((await rest.get(`/v1/keys/${id}`)).body, {
      origin: 'imported',
      state: 'PreActive',
      spec: { algorithm: 'ML-DSA', parameterSet: 'ML-DSA-44', sizeBits: 128 },
    });
    ok(t, await signer.one(O.Activate, [uid(id)]), 'Activate');
    const signed = await signer.one(O.Sign, [uid(id), bytes(T.Data, MESSAGE)]);
    t.ok(
      verify(null, MESSAGE, pair.publicKey, bytesIn(child(signed.payload, T.SignatureData))),
      "the registered key signs: the caller's own public key verifies it",
    );
    t.match(
      await signer.one(O.Register, register14(PQ_ALGORITHM_CODES['ML-DSA-65'], pkcs8, 'pq-byok-wrong-set')),
      { reason: R.InvalidField, message: /the spec asks for ML-DSA-65/ },
      'material of another set is refused',
    );
    t.match(
      await signer.one(
        O.Register,
        register14(PQ_ALGORITHM_CODES['ML-DSA-44'], pkcs8, 'pq-byok-pkcs1', K.KeyFormatType.Pkcs1),
      ),
      { reason: R.InvalidField, message: /registered in Key Format Type PKCS#8/ },
      'only PKCS#8',
    );
    const trail = (await kmip.svc.client('admin').auditOf(id)).filter((r: any) => r.context.door === 'kmip');
    t.same(
      trail.map((r: any) => `${r.operation} ${r.context['kmip.operation']} ${r.outcome}`),
      ['Create Register Success', 'Activate Activate Success', 'Sign Sign Success'],
    );
    t.notOk(JSON.stringify(trail).includes(pkcs8.toString('base64')), 'the registered material is in no record');

    const made: Record<string, string> = {};
    for (const set of ['ML-DSA-65', 'SLH-DSA-SHA2-128f', 'SLH-DSA-SHAKE-128f'] as const) {
      const answer = await signer.one(O.CreateKeyPair, createKeyPair14(set, `pq-locate-${set}`));
      made[set] = textIn(child(answer.payload, T.PrivateKeyUniqueIdentifier))!;
    }
    const ed = await rest.key({ algorithm: 'EdDSA' });
    const locate = async (code: number, objectType?: number) =>
      uidsIn(
        (
          await signer.one(O.Locate, [
            algorithmAttr(code),
            ...(objectType ? [attr('Object Type', enumeration(T.AttributeValue, objectType))] : []),
          ])
        ).payload,
      );
    t.same(await locate(PQ_ALGORITHM_CODES['ML-DSA-65']), [made['ML-DSA-65'], `${made['ML-DSA-65']}-public`]);
    t.same(await locate(PQ_ALGORITHM_CODES['ML-DSA-44'], K.ObjectType.PrivateKey), [id], 'the registered key');
    t.same(await locate(PQ_ALGORITHM_CODES['SLH-DSA-SHA2-128f'], K.ObjectType.PrivateKey), [made['SLH-DSA-SHA2-128f']]);
    t.same(await locate(PQ_ALGORITHM_CODES['SLH-DSA-SHAKE-128f'], K.ObjectType.PublicKey), [
      `${made['SLH-DSA-SHAKE-128f']}-public`,
    ]);
    t.same(await locate(PQ_ALGORITHM_CODES['ML-DSA-87']), [], 'a set with no key finds none');
    t.same(await locate(K.CryptographicAlgorithm.Ed25519, K.ObjectType.PrivateKey), [ed], 'Ed25519 as before');
  });
}
