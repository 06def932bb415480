import { execFile } from 'node:child_process';
import t from 'tap';
import { ApiClient, b64 } from '../helpers/client.ts';
import { startTestService } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';
import { debianTool } from '../helpers/debian-tool.ts';
import { serverMissing } from '../helpers/test-server.ts';
import { until } from '../helpers/until.ts';

/** The value of one sample, by metric name and exact label set as Prometheus prints it. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

t.test(
  'metrics count HTTP requests by route and status, detector findings, ' +
    'auto-responses, audit writes and the journal pool, and pass promtool',
  async (t) => {
    const svc = await startTestService({
      SVC_AUTH_KIND: 'hmac',
      SVC_AUTH_HMAC_SECRET: TEST_SECRET,
      SVC_JOURNAL_KIND: 'rdb-embedded',
    });
    t.teardown(() => svc.stop());
    const alice = new ApiClient(svc.url, { Authorization: `Bearer ${await mintToken({ sub: 'alice' })}` });
    const key = await alice.key({ algorithm: 'EdDSA' });
    t.equal((await alice.get('/v1/keys/00000000-0000-4000-8000-000000000000')).status, 404);
    t.equal((await alice.get('/no/such/route')).status, 404);
    // An agent signing far above its baseline: RateSpike findings, and the auto-responder revokes it and disables the key.
    const issued = await alice.post('/v1/agents/issue', { label: 'signer', scopes: ['Sign'], ttlSeconds: 600 });
    const agent = new ApiClient(svc.url, { Authorization: `Bearer ${issued.body.jwt}` });
    for (let i = 0; i < 95; i++) await agent.post(`/v1/keys/${key}/sign`, { messageBase64: b64(`m${i}`) });
    await until(
      async () => (await alice.get(`/v1/keys/${key}`)).body.enabled === false,
      'the auto-responder to disable the key',
    );

    const text = await (await fetch(`${svc.url}/metrics`)).text();
    t.equal(
      sample(text, 'svc_http_requests_total{method="POST",route="/v1/keys",status="201"}'),
      1,
      'one create answered 201',
    );
    t.equal(
      sample(text, 'svc_http_requests_total{method="GET",route="/v1/keys/:id",status="404"}'),
      1,
      'the unknown key by its route template, not its id',
    );
    t.equal(
      sample(text, 'svc_http_requests_total{method="GET",route="unmatched",status="404"}'),
      1,
      'a path no route serves',
    );
    t.ok(
      (sample(text, 'svc_http_requests_total{method="POST",route="/v1/keys/:id/sign",status="200"}') ?? 0) >= 90,
      'the signs',
    );
    t.ok(
      (sample(text, 'svc_http_request_duration_seconds_count{method="POST",route="/v1/keys/:id/sign"}') ?? 0) >= 90,
      'and their latency',
    );
    t.ok(
      (sample(text, 'svc_detector_findings_total{detector="RateSpike",severity="High"}') ?? 0) >= 1,
      'the RateSpike finding',
    );
    t.equal(
      sample(text, 'svc_auto_response_actions_total{action="Disable",result="success"}'),
      1,
      'the key disabled once',
    );
    t.equal(
      sample(text, 'svc_auto_response_actions_total{action="RevokeAgent",result="success"}'),
      1,
      'the agent revoked once',
    );
    t.ok((sample(text, 'svc_audit_write_duration_seconds_count{result="ok"}') ?? 0) >= 95, 'every audit write timed');
    t.equal(sample(text, 'svc_audit_write_failures_total'), 0, 'no audit write failed');
    t.ok((sample(text, 'svc_journal_pool_connections{state="max"}') ?? 0) >= 1, 'the journal pool size');
    t.notMatch(text, /# TYPE \w+_total gauge/, 'no gauge is named *_total');

    const tool = debianTool('promtool', 'prometheus');
    if (!tool) return serverMissing(t, 'promtool (Debian package prometheus) is not installed and could not be');
    const check = await new Promise<{ code: number; out: string }>((resolve) => {
      const child = execFile(tool, ['check', 'metrics'], (err, stdout, stderr) =>
        resolve({ code: err ? 1 : 0, out: `${stdout}${stderr}` }),
      );
      child.stdin!.end(text);
    });
    t.equal(check.code, 0, check.out);
    t.equal(check.out.trim(), '', 'promtool check metrics has nothing to say');
  },
);
