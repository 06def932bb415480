import { readFileSync } from 'node:fs';
import t from 'tap';
import { bytes, child, K, text, type TtlvItem } from '../../plugins/doors/kmip/ttlv/index.ts';
import { kmipRequest, RawKmipClient, responseItems, startKmipService } from '../helpers/kmip.ts';

const T = K.Tag;
const O = K.Operation;

// On the KMIP door a Unique Identifier ending in "-public" names the public half of the object before it,
// but an alias is read whole: alias/app-public is an alias of its own, never "alias/app" + "-public". If it
// were split, a KMIP client encrypting under ITS alias alias/app-public would encrypt under whatever key
// another tenant's alias/app names, and that tenant could decrypt the data.
// Policy: producers may Encrypt under any key (a common model), everything else only on their own keys.
const OWN = { operations: ['Create', 'Activate', 'Get', 'AddAttribute', 'Decrypt', 'Encrypt'], keys: ['owner:self'] };
t.test('alias/NAME-public is its own alias on KMIP, not the public half of alias/NAME', async (t) => {
  const kmip = await startKmipService({
    SVC_RISK_ENABLED: 'false',
    SVC_POLICY_KIND: 'role-based',
    SVC_POLICY_SUBJECT_BINDINGS: JSON.stringify({
      billing: ['Create', 'Activate', 'Get', 'AddAttribute', 'Decrypt', 'Encrypt'],
      mallory: OWN,
    }),
  });
  t.teardown(() => kmip.stop());
  const ca = readFileSync(kmip.pki.caFile);
  const client = await RawKmipClient.connect(kmip.port, ca, kmip.identity('billing', '/CN=billing'));
  t.teardown(() => client.close());
  const one = async (operation: number, payload: TtlvItem[]) =>
    responseItems(await client.request(kmipRequest([1, 4], [{ operation, payload }])))[0]!;

  const billing = kmip.svc.client('billing');
  const mallory = kmip.svc.client('mallory');
  const billingKey = await billing.key({ algorithm: 'AES' });
  t.equal((await billing.call('PUT', '/v1/aliases/alias%2Fapp-public', { keyId: billingKey })).status, 200);
  const malloryKey = await mallory.key({ algorithm: 'AES' });
  t.equal((await mallory.call('PUT', '/v1/aliases/alias%2Fapp', { keyId: malloryKey })).status, 200);

  const sealed = await one(O.Encrypt, [
    text(T.UniqueIdentifier, 'alias/app-public'),
    bytes(T.Data, Buffer.from('card numbers')),
  ]);
  t.equal(sealed.status, K.ResultStatus.Success, JSON.stringify(sealed.message));
  const usedKey = (child(sealed.payload, T.UniqueIdentifier) as { value: string }).value;
  t.equal(usedKey, billingKey, "billing's alias/app-public encrypts under billing's key");

  const data = (child(sealed.payload, T.Data) as { value: Buffer }).value;
  const iv = (child(sealed.payload, T.IvCounterNonce) as { value: Buffer }).value;
  const tag = (child(sealed.payload, T.AuthenticatedEncryptionTag) as { value: Buffer }).value;
  const stolen = await mallory.post(`/v1/keys/${malloryKey}/raw-decrypt`, {
    ciphertextBase64: data.toString('base64'),
    ivBase64: iv.toString('base64'),
    tagBase64: tag.toString('base64'),
  });
  t.not(stolen.status, 200, "mallory cannot decrypt what billing encrypted under billing's alias");
  if (stolen.status === 200) t.comment(`mallory read: ${Buffer.from(stolen.body.plaintextBase64, 'base64')}`);
});
