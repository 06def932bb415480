import type { Test } from 'tap';
import { type ApiClient, b64 } from './client.ts';

/**
 * What a backup must carry: keys with several versions, ciphertexts under old and new versions, a
 * signing key, agents (one revoked) and the audit trail of all of it. `seedState` makes it through the
 * API; `checkState` asserts a restored or upgraded service still has all of it, unchanged.
 */
export interface SeededState {
  keys: Record<string, unknown>[];
  ciphertexts: { keyId: string; ciphertextBase64: string; plaintext: string }[];
  signature: { keyId: string; messageBase64: string; signatureBase64: string };
  agents: unknown[];
}

export async function seedState(api: ApiClient, label: string): Promise<SeededState> {
  const aes = await api.key({ name: `${label}-payments`, algorithm: 'AES', sizeBits: 256 });
  const ciphertexts: SeededState['ciphertexts'] = [];
  const encrypt = async (plaintext: string) => {
    const res = await api.post(`/v1/keys/${aes}/encrypt`, {
      plaintextBase64: b64(plaintext),
      context: { tenant: 'acme' },
    });
    if (res.status !== 200) throw new Error(`encrypt: ${res.status} ${JSON.stringify(res.body)}`);
    ciphertexts.push({ keyId: aes, ciphertextBase64: res.body.ciphertextBase64, plaintext });
  };
  await encrypt('under version 1');
  const rotated = await api.post(`/v1/keys/${aes}/rotate`, {});
  if (rotated.status !== 200) throw new Error(`rotate: ${rotated.status} ${JSON.stringify(rotated.body)}`);
  await encrypt('under version 2');
  const signer = await api.key({ name: `${label}-releases`, algorithm: 'EdDSA' });
  const messageBase64 = b64('release 1.0');
  const signed = await api.post(`/v1/keys/${signer}/sign`, { messageBase64 });
  if (signed.status !== 200) throw new Error(`sign: ${signed.status} ${JSON.stringify(signed.body)}`);
  const kept = await api.post('/v1/agents/issue', {
    label: `${label}-reporter`,
    scopes: ['Encrypt'],
    ttlSeconds: 3600,
  });
  const stopped = await api.post('/v1/agents/issue', { label: `${label}-stopped`, scopes: ['Sign'], ttlSeconds: 3600 });
  if (kept.status !== 200 || stopped.status !== 200)
    throw new Error(`agents/issue: ${kept.status} ${JSON.stringify(kept.body)}`);
  const revoked = await api.post(`/v1/agents/${stopped.body.agentId}/revoke`, {});
  if (revoked.status !== 200) throw new Error(`agent revoke: ${revoked.status} ${JSON.stringify(revoked.body)}`);
  return {
    keys: [(await api.get(`/v1/keys/${aes}`)).body, (await api.get(`/v1/keys/${signer}`)).body],
    ciphertexts,
    signature: { keyId: signer, messageBase64, signatureBase64: signed.body.signatureBase64 },
    agents: await agentsOf(api),
  };
}

async function agentsOf(api: ApiClient): Promise<unknown[]> {
  const res = await api.get('/v1/agents?limit=1000');
  if (res.status !== 200) throw new Error(`agents: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body.agents as { agentId: string }[]).sort((a, b) => a.agentId.localeCompare(b.agentId));
}

/** `exact: false` (after an upgrade): a key may show fields the newer release added, beside every old one unchanged. */
export async function checkState(
  t: Test,
  api: ApiClient,
  state: SeededState,
  what: string,
  { exact = true } = {},
): Promise<void> {
  const compare = exact ? t.same.bind(t) : t.has.bind(t);
  for (const key of state.keys) {
    compare(
      (await api.get(`/v1/keys/${(key as { id: string }).id}`)).body,
      key,
      `${what}: key ${(key as { spec?: { name?: string } }).spec?.name ?? ''} with its versions and state`,
    );
  }
  for (const { keyId, ciphertextBase64, plaintext } of state.ciphertexts) {
    const dec = await api.post(`/v1/keys/${keyId}/decrypt`, { ciphertextBase64, context: { tenant: 'acme' } });
    t.equal(dec.status, 200, `${what}: decrypt "${plaintext}"`);
    t.equal(dec.body.plaintextBase64, b64(plaintext), `${what}: "${plaintext}" decrypts to what was encrypted`);
  }
  const verified = await api.post(`/v1/keys/${state.signature.keyId}/verify`, {
    messageBase64: state.signature.messageBase64,
    signatureBase64: state.signature.signatureBase64,
  });
  t.equal(verified.body.valid, true, `${what}: the signature made before still verifies`);
  compare(await agentsOf(api), state.agents, `${what}: the agents, the revoked one still revoked`);
  const chain = await api.get('/v1/audit/verify?full=true');
  t.equal(chain.status, 200);
  t.equal(chain.body.valid, true, `${what}: the audit chain verifies in full (${JSON.stringify(chain.body)})`);
}
