import { loadavg } from 'node:os';
import { benchAccessKey, signedAwsHeaders } from './lib/aws-request.ts';
import { measureDoorVersusRest, startBearerService } from './lib/door-versus-rest.ts';
import { load } from './lib/harness.ts';
import { mintToken } from '../test/helpers/tokens.ts';
import { PLAINTEXT } from './lib/paired.ts';

/**
 * `npm run bench:aws`: the same encrypt of 1 KiB on one service, over REST (POST /v1/keys/:id/encrypt)
 * and through the AWS KMS door (TrentService.Encrypt, signed with Signature Version 4 by an access key),
 * ABBA per round, req/s and requests per CPU second of the server process. The AWS request is signed once
 * per run and sent again and again: the door verifies the signature of every request (AWS accepts a
 * signature for 5 minutes), so each call pays the whole check. Writes the generated part of
 * docs/benchmarks-aws.md.
 */
const svc = await startBearerService('aws');
const pid = svc.child.pid!;
const startLoad = loadavg()[0]!;
const restOk = (body: string) => body.includes('"ciphertextBase64"');
const awsOk = (body: string) => body.includes('"CiphertextBlob"');

let errors = 0;
try {
  const bearer = { Authorization: `Bearer ${await mintToken({ sub: 'bench' }, { ttlSeconds: 3600 })}` };
  const created = await fetch(`${svc.url}/v1/keys`, {
    method: 'POST',
    headers: { ...bearer, 'Content-Type': 'application/json' },
    body: JSON.stringify({ spec: { algorithm: 'AES' }, activate: true }),
  });
  if (created.status !== 201) throw new Error(`create key: HTTP ${created.status} ${await created.text()}`);
  const keyId = ((await created.json()) as { id: string }).id;
  const credentials = await benchAccessKey(svc.url, bearer);
  const awsUrl = new URL(`${svc.url}/aws/kms`);
  const body = { KeyId: keyId, Plaintext: PLAINTEXT.plaintextBase64 };
  const signedHeaders = () => signedAwsHeaders(awsUrl, 'Encrypt', body, credentials);
  const first = await fetch(awsUrl, { method: 'POST', headers: await signedHeaders(), body: JSON.stringify(body) });
  const text = await first.text();
  if (!first.ok || !awsOk(text)) throw new Error(`AWS Encrypt: HTTP ${first.status} ${text.slice(0, 300)}`);
  errors = await measureDoorVersusRest(
    {
      door: 'AWS',
      doc: 'aws',
      title: 'Benchmark: the AWS KMS door against REST',
      auth: 'hmac auth: REST calls carry a bearer token (HS256 JWT), AWS calls an access key signature',
      rest: (seconds) =>
        load('encrypt 1 KiB, REST', `${svc.url}/v1/keys/${keyId}/encrypt`, PLAINTEXT, seconds, pid, {
          headers: bearer,
          verifyBody: restOk,
        }),
      doorLoad: async (seconds) =>
        load('encrypt 1 KiB, AWS Encrypt', awsUrl.href, body, seconds, pid, {
          headers: await signedHeaders(),
          verifyBody: awsOk,
        }),
      request: [
        'The AWS request is `POST /aws/kms` with `X-Amz-Target: TrentService.Encrypt`, `{"KeyId":…,"Plaintext":…}`, signed with',
        'Signature Version 4 by an access key (host, content-type, x-amz-date and x-amz-target signed, as the JavaScript SDK signs them);',
        'the door looks the access key up, checks the signature over the body and answers a CiphertextBlob that names its key.',
        'Every answer of both is checked for a ciphertext; a failed check counts as an error.',
      ],
    },
    startLoad,
  );
} finally {
  svc.child.kill('SIGTERM');
}
if (errors > 0) process.exitCode = 1;
