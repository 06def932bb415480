import { readFileSync } from 'node:fs';
import t from 'tap';
import {
  bytes,
  child,
  encodeTtlv,
  enumeration,
  integer,
  K,
  structure,
  text,
  type TtlvItem,
} from '../../plugins/doors/kmip/ttlv/index.ts';
import {
  kmipRequest,
  pykmip,
  pykmipAvailable,
  RawKmipClient,
  responseItems,
  startKmipService,
  type KmipService,
} from '../helpers/kmip.ts';
import { serverMissing } from '../helpers/test-server.ts';

const T = K.Tag;
const O = K.Operation;
const R = K.ResultReason;

/** Whether a connection with these credentials is refused in (or right after) the TLS handshake, before any answer. */
async function refused(kmip: KmipService, identity?: { certFile: string; keyFile: string }): Promise<boolean> {
  let client: RawKmipClient;
  try {
    client = await RawKmipClient.connect(kmip.port, readFileSync(kmip.pki.caFile), identity);
  } catch {
    return true;
  }
  // TLS 1.3: the client finishes its side before the server has checked the certificate; the server then closes.
  client.send(
    encodeTtlv(
      kmipRequest(
        [1, 2],
        [{ operation: O.Query, payload: [enumeration(T.QueryFunction, K.QueryFunction.QueryOperations)] }],
      ),
    ),
  );
  const answer = await client.next().catch(() => undefined);
  client.close();
  return answer === undefined;
}

const queryRequest = () =>
  kmipRequest(
    [1, 4],
    [{ operation: O.Query, payload: [enumeration(T.QueryFunction, K.QueryFunction.QueryServerInformation)] }],
  );

t.test('the KMIP door against hostile and broken clients', async (t) => {
  const kmip = await startKmipService();
  t.teardown(() => kmip.stop());
  const ca = readFileSync(kmip.pki.caFile);
  const good = kmip.identity('good', '/CN=good-service');
  const open = () => RawKmipClient.connect(kmip.port, ca, good);

  t.test('no client certificate, or one from another CA: the handshake is refused', async (t) => {
    t.ok(await refused(kmip), 'no certificate');
    t.ok(
      await refused(kmip, { certFile: kmip.pki.strangerCertFile, keyFile: kmip.pki.strangerKeyFile }),
      'a certificate the client CA did not sign',
    );
    t.notOk(await refused(kmip, good), 'the good client is served');
  });

  t.test("a certificate naming the service's own subject authenticates no one", async (t) => {
    const client = await RawKmipClient.connect(kmip.port, ca, kmip.identity('system', '/CN=svc-system'));
    t.teardown(() => client.close());
    const [item] = responseItems(await client.request(kmipRequest([1, 2], [{ operation: O.Create, payload: [] }])));
    t.match(item, {
      status: K.ResultStatus.OperationFailed,
      reason: R.AuthenticationNotSuccessful,
      message: /reserved/,
    });
  });

  t.test('a certificate with two CNs authenticates no one', async (t) => {
    const client = await RawKmipClient.connect(kmip.port, ca, kmip.identity('two-cns', '/CN=good-service/CN=admin'));
    t.teardown(() => client.close());
    const [item] = responseItems(await client.request(kmipRequest([1, 2], [{ operation: O.Locate, payload: [] }])));
    t.match(item, {
      status: K.ResultStatus.OperationFailed,
      reason: R.AuthenticationNotSuccessful,
      message: /more than one subject CN/,
    });
  });

  t.test('a message that frames but does not parse is answered Invalid Message; the connection goes on', async (t) => {
    const client = await open();
    t.teardown(() => client.close());
    const junk = Buffer.concat([
      Buffer.from('4200780100000010', 'hex'),
      Buffer.from('42000d0c00000004' + '0000000100000000', 'hex'),
    ]);
    t.match(responseItems(await (client.send(junk), client.next())), [
      { status: K.ResultStatus.OperationFailed, reason: R.InvalidMessage, message: /unknown item type/ },
    ]);
    let deep: TtlvItem = integer(T.BatchCount, 1);
    for (let i = 0; i < 40; i++) deep = structure(T.RequestPayload, [deep]);
    t.match(responseItems(await client.request(structure(T.RequestMessage, [deep]))), [
      { reason: R.InvalidMessage, message: /nest deeper/ },
    ]);
    t.match(responseItems(await client.request(structure(T.ResponseMessage, []))), [
      { reason: R.InvalidMessage, message: /not a Request Message/ },
    ]);
    t.match(responseItems(await client.request(kmipRequest([3, 0], [{ operation: O.Query, payload: [] }]))), [
      { reason: R.UnsupportedProtocolVersion },
    ]);
    t.match(responseItems(await client.request(kmipRequest([1, 2], [{ operation: O.Certify, payload: [] }]))), [
      { reason: R.OperationNotSupported, message: /Certify is not served/ },
    ]);
    t.match(
      responseItems(await client.request(queryRequest())),
      [{ status: K.ResultStatus.Success }],
      'the same connection still serves',
    );
  });

  t.test(
    'bytes that cannot be framed, or an over-size length, close the connection; the listener goes on',
    async (t) => {
      const notKmip = await open();
      notKmip.send(Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
      t.equal(await notKmip.next(), undefined, 'closed without an answer');
      const huge = await open();
      huge.send(Buffer.from('4200780100200000', 'hex')); // claims 2 MiB: refused on its header, nothing buffered
      t.equal(await huge.next(), undefined, 'closed on the header');
      const after = await open();
      t.teardown(() => after.close());
      t.match(responseItems(await after.request(queryRequest())), [{ status: K.ResultStatus.Success }]);
    },
  );

  t.test('fuzz against the live door: mutated requests are each answered, and the listener goes on', async (t) => {
    const client = await open();
    t.teardown(() => client.close());
    const seeds = [
      encodeTtlv(
        kmipRequest(
          [1, 2],
          [
            {
              operation: O.Create,
              payload: [
                enumeration(T.ObjectType, K.ObjectType.SymmetricKey),
                structure(T.TemplateAttribute, [
                  structure(T.Attribute, [
                    text(T.AttributeName, 'Cryptographic Algorithm'),
                    enumeration(T.AttributeValue, K.CryptographicAlgorithm.Aes),
                  ]),
                ]),
              ],
            },
          ],
        ),
      ),
      encodeTtlv(
        kmipRequest(
          [2, 0],
          [
            {
              operation: O.Encrypt,
              payload: [
                text(T.UniqueIdentifier, '00000000-0000-4000-8000-000000000000'),
                bytes(T.Data, Buffer.alloc(64, 1)),
              ],
            },
          ],
        ),
      ),
      encodeTtlv(queryRequest()),
    ];
    let state = 0x9e3779b9;
    const random = (n: number) => (state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0) % n;
    let answered = 0;
    for (let i = 0; i < 300; i++) {
      const message = Buffer.from(seeds[i % seeds.length]!);
      // Past the 8-byte header, so the message still frames and must be answered.
      for (let flips = 1 + random(4); flips > 0; flips--) message[8 + random(message.length - 8)] = random(256);
      client.send(message);
      const response = await client.next();
      if (response && responseItems(response).length > 0) answered++;
    }
    t.equal(answered, 300, 'every mutated request got a Response Message');
    const after = await open();
    t.teardown(() => after.close());
    t.match(responseItems(await after.request(queryRequest())), [{ status: K.ResultStatus.Success }]);
  });

  t.test('batches: items in order with their own results, the ID Placeholder, Stop and Continue', async (t) => {
    const client = await open();
    t.teardown(() => client.close());
    const aes = [
      enumeration(T.ObjectType, K.ObjectType.SymmetricKey),
      structure(T.TemplateAttribute, [
        structure(T.Attribute, [
          text(T.AttributeName, 'Cryptographic Algorithm'),
          enumeration(T.AttributeValue, K.CryptographicAlgorithm.Aes),
        ]),
        structure(T.Attribute, [text(T.AttributeName, 'Cryptographic Length'), integer(T.AttributeValue, 256)]),
      ]),
    ];
    const items = responseItems(
      await client.request(
        kmipRequest(
          [1, 2],
          [
            { operation: O.Create, payload: aes },
            { operation: O.Activate, payload: [] },
            { operation: O.Get, payload: [] },
          ],
        ),
      ),
    );
    t.match(
      items,
      [
        { operation: O.Create, status: 0 },
        { operation: O.Activate, status: 0 },
        { operation: O.Get, status: 1, reason: R.WrongKeyLifecycleState },
      ],
      'Activate acts on the key Create made',
    );
    const stop = responseItems(
      await client.request(
        kmipRequest(
          [1, 2],
          [
            { operation: O.Activate, payload: [text(T.UniqueIdentifier, 'nope')] },
            { operation: O.Query, payload: [] },
          ],
        ),
      ),
    );
    t.equal(stop.length, 1, 'Stop (the default): nothing runs after a failure');
    const withContinue = kmipRequest(
      [1, 2],
      [
        { operation: O.Activate, payload: [text(T.UniqueIdentifier, 'nope')] },
        { operation: O.Query, payload: [] },
      ],
    );
    (child(withContinue, T.RequestHeader) as { value: TtlvItem[] }).value.push(
      enumeration(T.BatchErrorContinuationOption, K.BatchErrorContinuationOption.Continue),
    );
    t.match(
      responseItems(await client.request(withContinue)),
      [{ reason: R.ItemNotFound }, { status: 0 }],
      'Continue runs every item',
    );
  });

  t.test('AES-GCM with additional data, and MACVerify, as KMIP carries them', async (t) => {
    const admin = kmip.svc.client('admin');
    const aesId = await admin.key({ algorithm: 'AES', sizeBits: 256 });
    const hmacId = await admin.key({ algorithm: 'HMAC', sizeBits: 256 });
    const client = await open();
    t.teardown(() => client.close());
    const aad = Buffer.from('invoice 42');
    const [enc] = responseItems(
      await client.request(
        kmipRequest(
          [1, 4],
          [
            {
              operation: O.Encrypt,
              payload: [
                text(T.UniqueIdentifier, aesId),
                bytes(T.Data, Buffer.from('secret')),
                bytes(T.AuthenticatedEncryptionAdditionalData, aad),
              ],
            },
          ],
        ),
      ),
    );
    const field = (tag: number) => (child(enc!.payload, tag) as { value: Buffer }).value;
    const [data, iv, tag] = [field(T.Data), field(T.IvCounterNonce), field(T.AuthenticatedEncryptionTag)];
    t.same(
      [data.length, iv.length, tag.length],
      [6, 12, 16],
      'Data is the ciphertext alone; the IV and tag have fields of their own',
    );
    const decrypt = (extra: TtlvItem[]) =>
      client.request(
        kmipRequest(
          [1, 4],
          [
            {
              operation: O.Decrypt,
              payload: [text(T.UniqueIdentifier, aesId), bytes(T.Data, data), bytes(T.IvCounterNonce, iv), ...extra],
            },
          ],
        ),
      );
    const [dec] = responseItems(
      await decrypt([bytes(T.AuthenticatedEncryptionAdditionalData, aad), bytes(T.AuthenticatedEncryptionTag, tag)]),
    );
    t.same((child(dec!.payload, T.Data) as { value: Buffer }).value.toString(), 'secret');
    t.match(
      responseItems(
        await decrypt([
          bytes(T.AuthenticatedEncryptionAdditionalData, Buffer.from('invoice 43')),
          bytes(T.AuthenticatedEncryptionTag, tag),
        ]),
      ),
      [{ reason: R.CryptographicFailure }],
      'other additional data: Cryptographic Failure',
    );
    t.match(
      responseItems(await decrypt([bytes(T.AuthenticatedEncryptionTag, tag)])),
      [{ reason: R.CryptographicFailure }],
      'no additional data: Cryptographic Failure',
    );
    const gcm = (mode: number) => structure(T.CryptographicParameters, [enumeration(T.BlockCipherMode, mode)]);
    t.match(responseItems(await decrypt([gcm(K.BlockCipherMode.Cbc), bytes(T.AuthenticatedEncryptionTag, tag)])), [
      { reason: R.InvalidField, message: /AES-GCM only/ },
    ]);
    const rest = await admin.post(`/v1/keys/${aesId}/raw-decrypt`, {
      ciphertextBase64: data.toString('base64'),
      ivBase64: iv.toString('base64'),
      tagBase64: tag.toString('base64'),
      aadBase64: aad.toString('base64'),
    });
    t.equal(
      Buffer.from(rest.body.plaintextBase64, 'base64').toString(),
      'secret',
      'REST raw-decrypt decrypts it with the same additional data',
    );
    const wrapped = kmipRequest(
      [1, 2],
      [
        {
          operation: O.Get,
          payload: [
            text(T.UniqueIdentifier, aesId),
            structure(T.KeyWrappingSpecification, [enumeration(T.WrappingMethod, 1)]),
          ],
        },
      ],
    );
    t.match(
      responseItems(await client.request(wrapped)),
      [{ reason: R.InvalidField, message: /Key Wrapping Specification is not supported/ }],
      'a Get that asks for wrapped material is refused, never answered unwrapped',
    );
    const params = structure(T.CryptographicParameters, [
      enumeration(T.CryptographicAlgorithm, K.CryptographicAlgorithm.HmacSha256),
    ]);
    const [mac] = responseItems(
      await client.request(
        kmipRequest(
          [1, 2],
          [{ operation: O.Mac, payload: [text(T.UniqueIdentifier, hmacId), params, bytes(T.Data, Buffer.from('m'))] }],
        ),
      ),
    );
    const macData = (child(mac!.payload, T.MacData) as { value: Buffer }).value;
    const verify = async (m: string) => {
      const [v] = responseItems(
        await client.request(
          kmipRequest(
            [1, 2],
            [
              {
                operation: O.MacVerify,
                payload: [
                  text(T.UniqueIdentifier, hmacId),
                  params,
                  bytes(T.Data, Buffer.from(m)),
                  bytes(T.MacData, macData),
                ],
              },
            ],
          ),
        ),
      );
      return (child(v!.payload, T.ValidityIndicator) as { value: number }).value;
    };
    t.equal(await verify('m'), K.ValidityIndicator.Valid);
    t.equal(await verify('n'), K.ValidityIndicator.Invalid);
  });

  t.test('garbage, over-size and stalled clients do not disturb a concurrent good client', async (t) => {
    if (!(await pykmipAvailable()))
      return serverMissing(t, 'python3-pykmip is not installed and could not be installed');
    const stalled = await open();
    // half a message, then nothing
    stalled.send(Buffer.concat([Buffer.from('42007801000003e8', 'hex'), Buffer.alloc(100)]));
    let hostileConnections = 0;
    let hostileRunning = true;
    const hostile = (async () => {
      while (hostileRunning) {
        const c = await open();
        c.send(Buffer.from(hostileConnections % 2 ? 'ffffffffffffffff' : '4200780100000008420000ff00000000', 'hex'));
        await c.next(); // an Invalid Message answer, or the close
        hostileConnections++;
        c.close();
      }
    })();
    const r = await pykmip(kmip, good, [
      { op: 'create', algorithm: 'AES', length: 256, name: 'calm' },
      { op: 'activate', uid: '$0' },
      { op: 'encrypt', uid: '$0', data: '00ff' },
      { op: 'decrypt', uid: '$0', data: '$2.data', iv: '$2.iv' },
    ]);
    hostileRunning = false;
    await hostile;
    t.ok(
      r.every((x) => 'ok' in x),
      `the good client's calls all succeed: ${JSON.stringify(r)}`,
    );
    t.equal(r[3] && 'ok' in r[3] ? r[3].ok : undefined, '00ff', 'and decrypt what it encrypted');
    t.ok(hostileConnections > 0, 'hostile connections were being served meanwhile');
    t.notOk(stalled.closed, 'the stalled client is still waiting, unanswered');
    stalled.close();
  });
});
