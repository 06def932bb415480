import { request } from 'node:http';
import t from 'tap';
import { ApiClient } from '../helpers/client.ts';
import { ManualClock, startTestService } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

/** A POST from a chosen loopback address: how a "new source address" reaches the service in a test. */
function postFrom(
  localAddress: string,
  url: string,
  token: string,
  body: unknown,
): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const req = request(
      url,
      {
        method: 'POST',
        localAddress,
        headers: {
          Authorization: `Bearer ${token}`,
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(data),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

const clock = new ManualClock(new Date());
const svc = await startTestService({ SVC_AUTH_KIND: 'hmac', SVC_AUTH_HMAC_SECRET: TEST_SECRET }, { clock });
t.teardown(() => svc.stop());
const alice = new ApiClient(svc.url, { Authorization: `Bearer ${await mintToken({ sub: 'alice' })}` });
const BROAD = ['Get', 'Sign', 'Encrypt', 'Rotate', 'Revoke'];

async function broadAgentNearExpiry(): Promise<string> {
  const issued = await alice.post('/v1/agents/issue', { label: 'ops-bot', scopes: BROAD, ttlSeconds: 1000 });
  return issued.body.jwt;
}

t.test('StepUp: a destructive operation by a broad-scope agent near the end of its TTL', async (t) => {
  const key = await alice.key({ algorithm: 'AES' });
  const jwt = await broadAgentNearExpiry();
  clock.advance(850_000); // 85% of the token's lifetime (the service's clock; the token is still valid)
  const res = await postFrom('127.0.0.1', `${svc.url}/v1/keys/${key}/rotate`, jwt, {});
  clock.advance(-850_000);
  t.equal(res.status, 401);
  t.equal(res.body.error, 'StepUpRequired');
  t.match(
    res.body.message,
    /^step-up authentication required: score 0\.50 from AgentPrincipal 0\.20, BroadScope 0\.10, CredentialAge 0\.10, DestructiveOp 0\.10; step-up threshold 0\.45 for a destructive operation$/,
  );
  const row = (await alice.auditOf(key)).at(-1);
  t.match(row, {
    operation: 'Rotate',
    outcome: 'StepUpRequired',
    context: { 'risk.score': '0.50', 'outcome.decision': 'StepUp', 'outcome.decision.reason': /step-up threshold/ },
  });
  t.equal((await alice.get(`/v1/keys/${key}`)).body.currentVersion, 1, 'nothing rotated');
});

t.test('Deny: the same, from a source address the agent never used', async (t) => {
  const key = await alice.key({ algorithm: 'AES' });
  const jwt = await broadAgentNearExpiry();
  const warm = await postFrom('127.0.0.1', `${svc.url}/v1/keys/${key}/rotate`, jwt, {});
  t.equal(warm.status, 200, 'fresh token, usual address: allowed (score 0.40)');
  clock.advance(850_000);
  const res = await postFrom('127.0.0.2', `${svc.url}/v1/keys/${key}/rotate`, jwt, {});
  clock.advance(-850_000);
  t.equal(res.status, 403);
  t.equal(res.body.error, 'PermissionDenied');
  // 0.80, or 1.00 when the clock's jump also crossed into an hour the agent has not used (TimeOfDayBaseline).
  t.match(
    res.body.message,
    /^risk: score (0\.80|1\.00) from (TimeOfDayBaseline 0\.20, )?SourceIpBaseline 0\.30, AgentPrincipal 0\.20, BroadScope 0\.10, CredentialAge 0\.10, DestructiveOp 0\.10; deny threshold 0\.70 for a destructive operation$/,
  );
  t.match((await alice.auditOf(key)).at(-1), {
    outcome: 'PermissionDenied',
    context: { 'source.ip': '127.0.0.2', 'outcome.decision': 'Deny', 'risk.factors': /SourceIpBaseline:0\.30/ },
  });
});

t.test('Humans are scored and audited but not gated by default', async (t) => {
  const key = await alice.key({ algorithm: 'AES' });
  const res = await postFrom('127.0.0.3', `${svc.url}/v1/keys/${key}/rotate`, await mintToken({ sub: 'alice' }), {});
  t.equal(res.status, 200);
  t.match((await alice.auditOf(key)).at(-1).context, { 'outcome.decision': 'Allow', 'risk.score': /^\d\.\d\d$/ });
});
