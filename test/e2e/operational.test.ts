import { Validator } from '@seriousme/openapi-schema-validator';
import t from 'tap';
import { auditSinkPort } from '../../kernel/ports/audit-sink.ts';
import { parse } from 'yaml';
import { ApiClient, b64 } from '../helpers/client.ts';
import { startTestService } from '../helpers/service.ts';

const svc = await startTestService();
t.teardown(() => svc.stop());
const api = svc.client();
const anonymous = new ApiClient(svc.url);

t.test('/metrics needs no credential and counts operations, latency and errors', async (t) => {
  const id = await api.key({ algorithm: 'EdDSA' });
  await api.post(`/v1/keys/${id}/sign`, { messageBase64: b64('m') });
  await api.post(`/v1/keys/${id}/sign`, { messageBase64: b64('m'), algorithm: 'Ed448' });
  const res = await anonymous.get('/metrics');
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /text\/plain; version=0\.0\.4/);
  t.match(res.body, /svc_keys_op_total\{operation="Sign"\} 2/);
  t.match(res.body, /svc_keys_op_duration_seconds_bucket\{le="[^"]+",operation="Sign",outcome="success"\}/);
  t.match(res.body, /svc_keys_op_errors_total\{operation="Sign",code="InvalidField"\} 1/);
  t.match(res.body, /process_cpu_user_seconds_total/);
});

t.test('/healthz and /readyz answer without a credential, readyz naming each check', async (t) => {
  t.same((await anonymous.get('/healthz')).body, { status: 'ok' });
  const ready = await anonymous.get('/readyz');
  t.equal(ready.status, 200);
  t.match(ready.body, {
    status: 'ready',
    checks: { journal: { ok: true }, rootOfTrust: { ok: true }, audit: { ok: true } },
  });
});

t.test('/readyz answers 503 when a probed plugin fails', async (t) => {
  const sink = svc.kernel.container.resolve<{ probe(): Promise<void> }>(auditSinkPort.id);
  const original = sink.probe;
  sink.probe = async () => {
    throw new Error('database is gone');
  };
  const res = await anonymous.get('/readyz');
  const asHuman = await api.get('/readyz');
  sink.probe = original;
  t.equal(res.status, 503);
  t.same(
    res.body.checks.audit,
    { ok: false, state: 'unavailable' },
    'an anonymous caller reads the name and state only',
  );
  t.match(
    asHuman.body,
    { status: 'unready', checks: { audit: { ok: false, state: 'unavailable', detail: 'database is gone' } } },
    'an authenticated Human reads why',
  );
  t.match(svc.logs.join('\n'), /readiness check fails.*"check":"audit".*database is gone/, 'the log has why');
});

t.test('/docs/docs.yaml is a valid OpenAPI 3.1 document covering every route', async (t) => {
  const res = await anonymous.get('/docs/docs.yaml');
  t.equal(res.status, 200);
  const doc = parse(res.body);
  t.equal(doc.openapi, '3.1.0');
  const result = await new Validator().validate(doc);
  t.equal(result.valid, true, JSON.stringify(result.errors));
  for (const path of [
    '/v1/keys',
    '/v1/keys/{id}',
    '/v1/keys/{id}/sign',
    '/v1/keys/{id}/verify',
    '/v1/keys/{id}/encrypt',
    '/v1/keys/{id}/decrypt',
    '/v1/keys/{id}/wrap',
    '/v1/keys/{id}/unwrap',
    '/v1/keys/{id}/rotate',
    '/v1/keys/{id}/revoke',
    '/v1/keys/{id}/compromise',
    '/v1/keys/{id}/public-key',
    '/v1/audit',
    '/metrics',
    '/healthz',
    '/readyz',
  ]) {
    t.ok(doc.paths[path], path);
  }
  t.ok(doc.paths['/v1/keys'].post.responses['201'], 'create documents 201');
  t.ok(doc.paths['/v1/keys/{id}'].delete.responses['409'], 'destroy documents 409');
  t.equal(doc.paths['/v1/audit'].get['x-svc-human-only'], true);
});

t.test('/docs/ serves the interactive UI with its assets from this server', async (t) => {
  const page = await anonymous.get('/docs/');
  t.equal(page.status, 200);
  const bare = await fetch(`${svc.url}/docs`, { redirect: 'manual' });
  t.equal(bare.status, 302, '/docs without the slash is sent to the page');
  t.equal(bare.headers.get('location'), '/docs/');
  t.match(page.body, /\/docs\/assets\/ui\/svc-docs\.js/);
  t.match(page.body, /\/docs\/assets\/ui\/swagger-ui-bundle\.js/);
  t.notMatch(
    page.body,
    /(href|src)="(https?:)?\/\//,
    'the page loads nothing from another host (no CDN, no web fonts)',
  );
  t.match(
    page.headers.get('content-security-policy'),
    /default-src 'self'/,
    'and the browser is told to refuse anything that is not from this server',
  );
  const init = await fetch(`${svc.url}/docs/assets/ui/svc-docs.js`);
  const script = await init.text();
  t.match(script, /layout: 'BaseLayout'/, 'the UI without its Explore bar');
  t.match(script, /url: '\/docs\/docs\.yaml'/);
  t.notMatch(script, /StandaloneLayout|https?:\/\//);
  t.equal((await fetch(`${svc.url}/docs/assets/ui/swagger-ui.css`)).status, 200);
  const bundle = await fetch(`${svc.url}/docs/assets/ui/swagger-ui-bundle.js`);
  t.equal(bundle.status, 200);
  t.ok((await bundle.text()).length > 100_000);
});
