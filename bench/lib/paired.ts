import { abba, activeKey, load, type Measured, ROUNDS } from './harness.ts';

/** One running service of a comparison: what the table calls it, where it listens, its pid (for CPU time). */
export interface Contender {
  label: string;
  url: string;
  pid?: number;
}

export interface Round {
  encrypt: { a: Measured; b: Measured };
  sign: { a: Measured; b: Measured };
}

export const PLAINTEXT = { plaintextBase64: Buffer.alloc(1024, 7).toString('base64') };
export const MESSAGE = {
  messageBase64: Buffer.from('a typical message to sign, about sixty-four bytes long......').toString('base64'),
};

/**
 * The comparison several benches make between two configurations of the service: an AES and an Ed25519
 * key on each, a warm-up of both, then ROUNDS rounds of ABBA on encrypt 1 KiB and Ed25519 sign.
 */
export async function pairedRounds(a: Contender, b: Contender): Promise<Round[]> {
  const keys = async (url: string) => ({
    aes: await activeKey(url, { algorithm: 'AES' }),
    ed: await activeKey(url, { algorithm: 'EdDSA' }),
  });
  const ka = await keys(a.url);
  const kb = await keys(b.url);
  await load(`warm-up ${a.label}`, `${a.url}/v1/keys/${ka.aes}/encrypt`, PLAINTEXT, 3);
  await load(`warm-up ${b.label}`, `${b.url}/v1/keys/${kb.aes}/encrypt`, PLAINTEXT, 3);
  const on = (side: Contender, path: string) => ({ ...side, url: `${side.url}${path}` });
  const rounds: Round[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const encrypt = await abba(
      'encrypt 1 KiB',
      on(a, `/v1/keys/${ka.aes}/encrypt`),
      on(b, `/v1/keys/${kb.aes}/encrypt`),
      PLAINTEXT,
    );
    const sign = await abba('sign Ed25519', on(a, `/v1/keys/${ka.ed}/sign`), on(b, `/v1/keys/${kb.ed}/sign`), MESSAGE);
    rounds.push({ encrypt, sign });
  }
  return rounds;
}
