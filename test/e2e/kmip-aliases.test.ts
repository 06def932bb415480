import { readFileSync } from 'node:fs';
import t from 'tap';
import { bytes, child, K, structure, text, type TtlvItem } from '../../plugins/doors/kmip/ttlv/index.ts';
import { kmipRequest, RawKmipClient, responseItems, startKmipService } from '../helpers/kmip.ts';

const T = K.Tag;
const O = K.Operation;

// An alias is a key id on the KMIP door too: as a Unique Identifier, and as the Name a Locate asks for.
t.test('KMIP takes alias/NAME as a Unique Identifier and finds the key it names by Name', async (t) => {
  const kmip = await startKmipService();
  t.teardown(() => kmip.stop());
  const ca = readFileSync(kmip.pki.caFile);
  const client = await RawKmipClient.connect(kmip.port, ca, kmip.identity('billing', '/CN=billing'));
  t.teardown(() => client.close());
  const one = async (operation: number, payload: TtlvItem[]) =>
    responseItems(await client.request(kmipRequest([1, 4], [{ operation, payload }])))[0]!;
  const rest = kmip.svc.client('billing');
  const id = await rest.key({ algorithm: 'AES' });
  const alias = `alias/kmip-${Date.now()}`;
  t.equal((await rest.call('PUT', `/v1/aliases/${encodeURIComponent(alias)}`, { keyId: id })).status, 200);

  const sealed = await one(O.Encrypt, [text(T.UniqueIdentifier, alias), bytes(T.Data, Buffer.from('via alias'))]);
  t.equal(sealed.status, K.ResultStatus.Success, JSON.stringify(sealed.message));
  t.equal((child(sealed.payload, T.UniqueIdentifier) as { value: string }).value, id, 'the answer names the key id');

  const nameAttribute = (name: string) =>
    structure(T.Attribute, [
      text(T.AttributeName, 'Name'),
      structure(T.AttributeValue, [text(T.NameValue, name), { tag: T.NameType, type: 'Enumeration', value: 1 }]),
    ]);
  const located = await one(O.Locate, [nameAttribute(alias)]);
  t.equal(located.status, K.ResultStatus.Success);
  t.same(
    located.payload?.type === 'Structure' ? located.payload.value.map((v: any) => v.value) : [],
    [id],
    'Locate by the alias as Name finds exactly that key',
  );
  const none = await one(O.Locate, [nameAttribute('alias/nothing-here')]);
  t.same(none.payload?.type === 'Structure' ? none.payload.value : [], [], 'an alias naming no key finds nothing');
  const trail = await rest.auditOf(id);
  t.ok(
    trail.some((r: any) => r.operation === 'Encrypt' && r.context.door === 'kmip' && r.context.alias === alias),
    'the KMIP call is audited with the key id and the alias',
  );
});
