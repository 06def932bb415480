import t from 'tap';
import { ApiClient, b64 } from '../helpers/client.ts';
import { spawnService } from '../helpers/process.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

t.test('a whole run: no token, secret, plaintext or data key appears on stdout (audit) or stderr (logs)', async (t) => {
  const svc = spawnService({
    SVC_HTTP_HOST: '127.0.0.1',
    SVC_HTTP_PORT: '0',
    SVC_AUTH_KIND: 'hmac',
    SVC_AUTH_HMAC_SECRET: TEST_SECRET,
  });
  const url = `http://127.0.0.1:${await svc.listening}`;
  const humanToken = await mintToken({ sub: 'alice' });
  const human = new ApiClient(url, { Authorization: `Bearer ${humanToken}` });
  const issued = await human.post('/v1/agents/issue', {
    label: 'runner',
    scopes: ['Create', 'Activate', 'Encrypt', 'Wrap', 'Sign'],
    ttlSeconds: 300,
  });
  const agent = new ApiClient(url, { Authorization: `Bearer ${issued.body.jwt}` });
  const key = (await agent.post('/v1/keys', { spec: { name: 'k', algorithm: 'AES' } })).body.id;
  await agent.post(`/v1/keys/${key}/activate`);
  const plaintext = b64('the-plaintext-secret-value');
  const dek = Buffer.alloc(32, 0xab).toString('base64');
  await agent.post(`/v1/keys/${key}/encrypt`, {
    plaintextBase64: plaintext,
    context: { tenant: 'context-value-secret' },
  });
  await agent.post(`/v1/keys/${key}/wrap`, { dekBase64: dek });
  await agent.post(`/v1/keys/${key}/sign`, { messageBase64: b64('m') }); // refused: AES does not sign
  await new ApiClient(url, { Authorization: `Bearer ${issued.body.jwt}x` }).get(`/v1/keys/${key}`); // a broken token
  svc.child.kill('SIGTERM');
  t.equal(await svc.exited, 0);
  const everything = svc.stdout() + svc.stderr();
  t.ok(svc.stdout().split('\n').filter(Boolean).length >= 6, 'the run was audited');
  for (const [name, secret] of Object.entries({
    humanToken,
    agentToken: issued.body.jwt,
    hmacSecret: TEST_SECRET,
    plaintext,
    dek,
    contextValue: 'context-value-secret',
  })) {
    t.notOk(everything.includes(secret), `${name} is nowhere in the output`);
  }
  for (const part of issued.body.jwt.split('.')) t.notOk(everything.includes(part), 'no part of the JWT either');
});
