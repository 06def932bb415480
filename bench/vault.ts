import { loadavg } from 'node:os';
import { measureDoorVersusRest, startBearerService } from './lib/door-versus-rest.ts';
import { load } from './lib/harness.ts';
import { mintToken } from '../test/helpers/tokens.ts';
import { PLAINTEXT } from './lib/paired.ts';

/**
 * `npm run bench:vault`: the same encrypt of 1 KiB on one service, over REST (POST /v1/keys/:id/encrypt)
 * and through the Vault transit door (POST /v1/transit/encrypt/NAME, the key named by its alias as transit
 * clients name it), ABBA per round, req/s and requests per CPU second of the server process. Both carry
 * the same bearer token (REST in Authorization, transit in X-Vault-Token). Writes the generated part of
 * docs/benchmarks-vault.md.
 */
const svc = await startBearerService('vault');
const pid = svc.child.pid!;
const startLoad = loadavg()[0]!;
const restOk = (body: string) => body.includes('"ciphertextBase64"');
const transitOk = (body: string) => body.includes('"ciphertext":"vault:v1:');

let errors = 0;
try {
  const token = await mintToken({ sub: 'bench' }, { ttlSeconds: 3600 });
  const bearer = { Authorization: `Bearer ${token}` };
  const created = await fetch(`${svc.url}/v1/transit/keys/bench`, {
    method: 'POST',
    headers: { 'X-Vault-Token': token, 'Content-Type': 'application/json' },
    body: '{}',
  });
  if (created.status !== 200) throw new Error(`create key: HTTP ${created.status} ${await created.text()}`);
  const keyId = ((await created.json()) as { data: { 'svc.key_id': string } }).data['svc.key_id'];
  const body = { plaintext: PLAINTEXT.plaintextBase64 };
  errors = await measureDoorVersusRest(
    {
      door: 'transit',
      doc: 'vault',
      title: 'Benchmark: the Vault transit door against REST',
      auth: 'hmac auth: both carry one bearer token (HS256 JWT), REST in Authorization, transit in X-Vault-Token',
      rest: (seconds) =>
        load('encrypt 1 KiB, REST', `${svc.url}/v1/keys/${keyId}/encrypt`, PLAINTEXT, seconds, pid, {
          headers: bearer,
          verifyBody: restOk,
        }),
      doorLoad: (seconds) =>
        load('encrypt 1 KiB, transit encrypt', `${svc.url}/v1/transit/encrypt/bench`, body, seconds, pid, {
          headers: { 'X-Vault-Token': token },
          verifyBody: transitOk,
        }),
      request: [
        'The transit request is `POST /v1/transit/encrypt/bench` with `X-Vault-Token` and `{"plaintext":…}`: the door',
        'authenticates the token, the pipeline resolves the alias alias/bench to its key at each call, and the answer is',
        "Vault's envelope with a `vault:v1:` ciphertext. Every answer of both is checked for a ciphertext; a failed check counts as an error.",
      ],
    },
    startLoad,
  );
} finally {
  svc.child.kill('SIGTERM');
}
if (errors > 0) process.exitCode = 1;
