import { SignatureV4 } from '@smithy/signature-v4';
import t, { type Test } from 'tap';
import { type ArrivedRequest, SigV4Refusal, verifySigV4 } from '../../plugins/doors/aws-kms/sigv4.ts';
import { Sha256 } from '../helpers/aws-kms.ts';

// The AWS KMS door's signature check, held against the AWS SDK's own signer (@smithy/signature-v4, what
// @aws-sdk/client-kms signs with), including a signature over fewer headers, as the AWS CLI makes them.

const ACCESS_KEY = 'SVCKMSTESTKEY00001';
const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const NOW = new Date('2026-11-29T12:00:00.000Z');
const secrets = async (id: string) => (id === ACCESS_KEY ? SECRET : undefined);
const options = { service: 'kms', now: NOW, maxSkewMs: 5 * 60_000 };

async function signed(
  overrides: {
    secret?: string;
    at?: Date;
    region?: string;
    unsigned?: string[];
    token?: string;
    service?: string;
  } = {},
): Promise<ArrivedRequest & { headers: Record<string, string> }> {
  const body = JSON.stringify({ KeyId: 'alias/payments', Plaintext: 'aGVsbG8=' });
  const signer = new SignatureV4({
    service: overrides.service ?? 'kms',
    region: overrides.region ?? 'eu-west-1',
    sha256: Sha256,
    credentials: {
      accessKeyId: ACCESS_KEY,
      secretAccessKey: overrides.secret ?? SECRET,
      ...(overrides.token ? { sessionToken: overrides.token } : {}),
    },
  });
  const request = await signer.sign(
    {
      method: 'POST',
      protocol: 'http:',
      hostname: '127.0.0.1',
      port: 8080,
      path: '/aws/kms',
      query: {},
      headers: {
        host: '127.0.0.1:8080',
        'content-type': 'application/x-amz-json-1.1',
        'x-amz-target': 'TrentService.Encrypt',
      },
      body,
    },
    { signingDate: overrides.at ?? NOW, unsignableHeaders: new Set(overrides.unsigned ?? []) },
  );
  const headers = request.headers as Record<string, string>;
  return {
    method: 'POST',
    target: '/aws/kms',
    rawHeaders: Object.entries(headers).flat(),
    body: Buffer.from(body),
    headers,
  };
}

const refused = async (t: Test, request: ArrivedRequest, type: string, message: RegExp) => {
  const error = await verifySigV4(request, secrets, options).then(
    () => undefined,
    (err: unknown) => err,
  );
  t.ok(error instanceof SigV4Refusal, `refused (${type})`);
  t.equal((error as SigV4Refusal).type, type);
  t.match((error as SigV4Refusal).message, message);
};

t.test('a request the SDK signed is accepted, in any region, and names its signer', async (t) => {
  t.same(await verifySigV4(await signed(), secrets, options), { accessKeyId: ACCESS_KEY, region: 'eu-west-1' });
  t.match(await verifySigV4(await signed({ region: 'ap-southeast-2' }), secrets, options), {
    region: 'ap-southeast-2',
  });
  const fewer = await signed({ unsigned: ['content-type'] });
  t.match(
    fewer.headers.authorization,
    /SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-target,|SignedHeaders=host;x-amz-date;x-amz-target,/,
  );
  t.same(
    await verifySigV4(fewer, secrets, options),
    { accessKeyId: ACCESS_KEY, region: 'eu-west-1' },
    'fewer headers signed, as the AWS CLI does',
  );
  const within = await signed({ at: new Date(NOW.getTime() - 4 * 60_000) });
  t.ok(await verifySigV4(within, secrets, options), 'a date 4 minutes old');
  const withToken = await signed({ token: 'agent.token.here' });
  t.same(await verifySigV4(withToken, secrets, options), {
    accessKeyId: ACCESS_KEY,
    region: 'eu-west-1',
    sessionToken: 'agent.token.here',
  });
});

t.test('refusals, each the exception AWS answers', async (t) => {
  const impossible = await signed();
  impossible.rawHeaders = impossible.rawHeaders.map((v) => v.replaceAll('20261129', '20261131'));
  await refused(t, impossible, 'IncompleteSignatureException', /X-Amz-Date must be/);
  await refused(
    t,
    await signed({ unsigned: ['x-amz-target'] }),
    'IncompleteSignatureException',
    /x-amz-target must be a signed header/,
  );
  await refused(t, await signed({ secret: 'not-the-secret' }), 'InvalidSignatureException', /does not match/);
  const unknown = await signed();
  unknown.rawHeaders = unknown.rawHeaders.map((v) => v.replace(ACCESS_KEY, 'SVCKMSUNKNOWNKEY1'));
  await refused(t, unknown, 'UnrecognizedClientException', /security token included in the request is invalid/);
  await refused(
    t,
    await signed({ at: new Date(NOW.getTime() - 6 * 60_000) }),
    'InvalidSignatureException',
    /Signature expired/,
  );
  await refused(
    t,
    await signed({ at: new Date(NOW.getTime() + 6 * 60_000) }),
    'InvalidSignatureException',
    /Signature expired/,
  );
  await refused(t, await signed({ service: 's3' }), 'InvalidSignatureException', /scoped to correct service/);

  const otherTarget = await signed();
  otherTarget.rawHeaders = otherTarget.rawHeaders.map((v) =>
    v === 'TrentService.Encrypt' ? 'TrentService.Decrypt' : v,
  );
  await refused(t, otherTarget, 'InvalidSignatureException', /does not match/);
  const otherBody = await signed();
  otherBody.body = Buffer.from(JSON.stringify({ KeyId: 'alias/other', Plaintext: 'aGVsbG8=' }));
  await refused(t, otherBody, 'InvalidSignatureException', /does not match/);
  const otherPath = { ...(await signed()), target: '/aws/kms/' };
  await refused(t, otherPath, 'InvalidSignatureException', /does not match/);

  const unsignedToken = await signed({ unsigned: ['x-amz-security-token'] });
  unsignedToken.rawHeaders = [...unsignedToken.rawHeaders, 'X-Amz-Security-Token', 'swapped'];
  await refused(t, unsignedToken, 'IncompleteSignatureException', /must be a signed header/);
  const dropped = await signed();
  dropped.rawHeaders = dropped.rawHeaders.flatMap((v, i, all) =>
    i % 2 === 0 && v.toLowerCase() === 'x-amz-target'
      ? []
      : i % 2 === 1 && all[i - 1]!.toLowerCase() === 'x-amz-target'
        ? []
        : [v],
  );
  await refused(t, dropped, 'IncompleteSignatureException', /signed header x-amz-target is not in the request/);

  await refused(
    t,
    { ...(await signed()), rawHeaders: [] },
    'MissingAuthenticationTokenException',
    /Missing Authentication Token/,
  );
  for (const bad of [
    'Bearer abc',
    'AWS4-HMAC-SHA256 Credential=X',
    `AWS4-HMAC-SHA256 Credential=${ACCESS_KEY}/20261129/eu-west-1/kms/aws4_request, SignedHeaders=host, Signature=${'0'.repeat(64)}`,
  ]) {
    const request = await signed();
    request.rawHeaders = [
      ...request.rawHeaders.filter((_, i, all) =>
        i % 2 === 0 ? all[i]!.toLowerCase() !== 'authorization' : all[i - 1]!.toLowerCase() !== 'authorization',
      ),
      'Authorization',
      bad,
    ];
    await refused(t, request, 'IncompleteSignatureException', /Authorization must be|SignedHeaders must include/);
  }
});
