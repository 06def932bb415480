import { CreateKeyCommand, DescribeKeyCommand, EncryptCommand } from '@aws-sdk/client-kms';
import t from 'tap';
import { type AccessKey, kmsClient, signedRequest, failure } from '../helpers/aws-kms.ts';
import { ApiClient } from '../helpers/client.ts';
import { startTestService } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

/**
 * What the AWS door refuses, as AWS would: signatures that do not hold (wrong secret, a header changed
 * after signing, a date 6 minutes old, an unknown or deleted access key), agents beyond their scopes or
 * keys, and bad input (unknown target, malformed JSON, a 10 MB body, bad base64), each with AWS's
 * exception name and never a 5xx; refusals by a known access key and every call are audited with door aws.
 */

t.test('refusals of the AWS door', async (t) => {
  const svc = await startTestService({
    SVC_AUTH_KIND: 'hmac',
    SVC_AUTH_HMAC_SECRET: TEST_SECRET,
    SVC_RISK_ENABLED: 'false',
  });
  t.teardown(() => svc.stop());
  const alice = new ApiClient(svc.url, { Authorization: `Bearer ${await mintToken({ sub: 'alice' })}` });
  const auditor = new ApiClient(svc.url, { Authorization: `Bearer ${await mintToken({ sub: 'auditor' })}` });
  const created = await alice.post('/v1/access-keys', {});
  t.equal(created.status, 201);
  const key: AccessKey = { accessKeyId: created.body.accessKeyId, secretAccessKey: created.body.secretAccessKey };
  const kms = kmsClient(svc, key);
  const aes = (await kms.send(new CreateKeyCommand({}))).KeyMetadata!;
  const records = async (requestId: string) =>
    ((await auditor.get(`/v1/audit?limit=1000`)).body.records as any[]).filter((r) => r.correlationId === requestId);
  const lastRecords = async (n: number) => (await auditor.get(`/v1/audit?limit=${n}`)).body.records as any[];

  t.test('a call is audited with door aws, the access key and the AWS operation; no secret is recorded', async (t) => {
    const sealed = await kms.send(new EncryptCommand({ KeyId: aes.KeyId, Plaintext: Buffer.from('x') }));
    const [record] = await records(sealed.$metadata.requestId!);
    t.match(record, {
      principal: { subject: 'alice', kind: 'Human' },
      operation: 'Encrypt',
      outcome: 'Success',
      resource: aes.KeyId,
      context: { door: 'aws', 'aws.accessKeyId': key.accessKeyId, 'aws.operation': 'Encrypt' },
    });
    const trail = JSON.stringify((await auditor.get('/v1/audit?limit=1000')).body);
    t.notOk(trail.includes(key.secretAccessKey), 'the secret is nowhere in the audit trail');
    t.notOk(svc.logs.join('\n').includes(key.secretAccessKey), 'nor in the log');
  });

  t.test('signatures that do not hold', async (t) => {
    const body = JSON.stringify({ KeyId: aes.KeyId, Plaintext: Buffer.from('x').toString('base64') });
    // The last character changed to another: a secret that already ended in the replacement was no wrong secret.
    const last = key.secretAccessKey.slice(-1);
    const wrong = await signedRequest(
      svc,
      { ...key, secretAccessKey: `${key.secretAccessKey.slice(0, -1)}${last === 'A' ? 'B' : 'A'}` },
      'Encrypt',
      body,
    );
    t.match(wrong, { status: 400, body: { __type: 'InvalidSignatureException' } }, 'a wrong secret');
    const audited = (await lastRecords(20)).find(
      (r) => r.outcome === 'Unauthorized' && r.context['aws.exception'] === 'InvalidSignatureException',
    );
    t.match(
      audited,
      {
        principal: { subject: 'alice' },
        operation: 'Encrypt',
        context: { door: 'aws', 'aws.accessKeyId': key.accessKeyId },
      },
      'audited as an attempt on the key holder',
    );
    const changed = await signedRequest(svc, key, 'Encrypt', body, {
      afterSigning: { 'x-amz-target': 'TrentService.Decrypt' },
    });
    t.match(
      changed,
      { status: 400, body: { __type: 'InvalidSignatureException' } },
      'a signed header changed after signing',
    );
    const old = await signedRequest(svc, key, 'Encrypt', body, { at: new Date(Date.now() - 6 * 60_000) });
    t.match(
      old,
      { status: 400, body: { __type: 'InvalidSignatureException', message: /expired/ } },
      'a date 6 minutes old',
    );
    const unknown = await signedRequest(
      svc,
      { accessKeyId: 'AKSVAAAAAAAAAAAAAAAA', secretAccessKey: 'x' },
      'Encrypt',
      body,
    );
    t.match(unknown, { status: 400, body: { __type: 'UnrecognizedClientException' } }, 'an unknown access key');
    const unsigned = await fetch(`${svc.url}/aws/kms`, {
      method: 'POST',
      headers: { 'x-amz-target': 'TrentService.Encrypt', 'content-type': 'application/x-amz-json-1.1' },
      body,
    });
    t.match(await unsigned.json(), { __type: 'MissingAuthenticationTokenException' }, 'no signature at all');
  });

  t.test('a deleted access key is refused on the next call', async (t) => {
    const other = (await alice.post('/v1/access-keys', {})).body;
    const client = kmsClient(svc, other);
    t.ok((await client.send(new DescribeKeyCommand({ KeyId: aes.KeyId }))).KeyMetadata);
    t.equal((await alice.call('DELETE', `/v1/access-keys/${other.accessKeyId}`)).status, 200);
    t.match(await failure(client.send(new DescribeKeyCommand({ KeyId: aes.KeyId }))), {
      name: 'UnrecognizedClientException',
    });
  });

  t.test('an agent token as session token: the call is the agent, bounded by its scopes and keys', async (t) => {
    const other = (await kms.send(new CreateKeyCommand({}))).KeyMetadata!;
    const issued = await alice.post('/v1/agents/issue', {
      label: 'encrypter',
      scopes: ['Encrypt'],
      keys: [`id:${aes.KeyId}`],
      ttlSeconds: 600,
    });
    t.equal(issued.status, 200, JSON.stringify(issued.body));
    const agent = kmsClient(svc, { ...key, sessionToken: issued.body.jwt });
    const sealed = await agent.send(new EncryptCommand({ KeyId: aes.KeyId, Plaintext: Buffer.from('by agent') }));
    const [record] = await records(sealed.$metadata.requestId!);
    t.match(record, { principal: { kind: 'Agent', subject: issued.body.agentId }, context: { door: 'aws' } });
    const outOfScope = await failure(agent.send(new DescribeKeyCommand({ KeyId: aes.KeyId })));
    t.match(outOfScope, { name: 'AccessDeniedException' }, 'an operation outside its scopes');
    const outOfKeys = await failure(
      agent.send(new EncryptCommand({ KeyId: other.KeyId, Plaintext: Buffer.from('x') })),
    );
    t.match(outOfKeys, { name: 'AccessDeniedException' }, 'a key outside its keys');
    const refused = (await lastRecords(20)).filter(
      (r) => r.principal.subject === issued.body.agentId && r.outcome === 'PermissionDenied',
    );
    t.equal(refused.length, 2, 'both refusals audited');
    t.ok(refused.every((r) => r.context.door === 'aws'));
    const garbage = await failure(
      kmsClient(svc, { ...key, sessionToken: 'not-a-token' }).send(new DescribeKeyCommand({ KeyId: aes.KeyId })),
    );
    t.match(garbage, { name: 'UnrecognizedClientException' }, 'a session token that is no agent token');
    const human = await failure(
      kmsClient(svc, { ...key, sessionToken: await mintToken({ sub: 'mallory' }) }).send(
        new DescribeKeyCommand({ KeyId: aes.KeyId }),
      ),
    );
    t.match(
      human,
      { name: 'UnrecognizedClientException', message: /must be an agent token/ },
      'a Human token is no session token',
    );
  });

  t.test('bad input: AWS-style errors, never a 5xx', async (t) => {
    const cases: Array<[string, string, string, RegExp | undefined]> = [
      ['TrentService.MakeCoffee', '{}', 'UnknownOperationException', undefined],
      ['Encrypt', '{"KeyId": ', 'ValidationException', /not a JSON object/],
      ['Encrypt', '[1, 2]', 'ValidationException', /JSON object/],
      ['Encrypt', `{"KeyId": ${'['.repeat(100)}${']'.repeat(100)}}`, 'ValidationException', /nested deeper than 64/],
      ['Encrypt', JSON.stringify({ KeyId: aes.KeyId, Plaintext: 'not base64!' }), 'ValidationException', /base64/],
      ['Encrypt', JSON.stringify({ KeyId: aes.KeyId, Plaintext: 12 }), 'ValidationException', /string/],
      ['Encrypt', JSON.stringify({ KeyId: 'what?', Plaintext: 'eA==' }), 'NotFoundException', /Invalid keyId/],
      [
        'Encrypt',
        JSON.stringify({ KeyId: aes.KeyId, Plaintext: 'eA==', EncryptionContext: [1] }),
        'ValidationException',
        /map/,
      ],
      ['Decrypt', JSON.stringify({ CiphertextBlob: 'AAAA' }), 'InvalidCiphertextException', undefined],
      ['Encrypt', JSON.stringify({ Plaintext: 'eA==' }), 'ValidationException', /KeyId is required/],
    ];
    for (const [target, body, type, message] of cases) {
      const answer = await signedRequest(svc, key, target, body);
      t.match(
        answer,
        { status: 400, body: { __type: type, ...(message ? { message } : {}) } },
        `${target} ${body.slice(0, 40)}`,
      );
    }
    const huge = await signedRequest(
      svc,
      key,
      'Encrypt',
      JSON.stringify({ KeyId: aes.KeyId, Plaintext: 'A'.repeat(10 * 1024 * 1024) }),
    );
    t.match(huge, { status: 400, body: { __type: 'ValidationException', message: /larger than/ } }, 'a 10 MB body');
    const get = await fetch(`${svc.url}/aws/kms`);
    t.equal(get.status, 404);
    t.match(await get.json(), { __type: 'UnknownOperationException' });
    t.ok(
      svc.logs.every((line) => !line.includes('"level":"error"')),
      'nothing was logged as an error',
    );
  });
});
