import { createReadStream } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import { koaSwagger } from 'koa2-swagger-ui';
import { AuditEventSchema } from '../../schemas/audit-event.ts';
import type { KmsMetrics } from '../observability/metrics.ts';
import type { PublicRoute } from './route.ts';

const require = createRequire(import.meta.url);
const SWAGGER_DIST = path.dirname(require.resolve('swagger-ui-dist/package.json'));
// The UI's page asks for these names; they are served from the swagger-ui-dist package, never a CDN.
const UI_ASSETS: Record<string, { file: string; type: string }> = {
  'swagger-ui.min.css': { file: 'swagger-ui.css', type: 'text/css' },
  'swagger-ui-bundle.js': { file: 'swagger-ui-bundle.js', type: 'application/javascript' },
  'swagger-ui-standalone-preset.js': { file: 'swagger-ui-standalone-preset.js', type: 'application/javascript' },
};

// The TypeBox schema is JSON Schema already; serialized once, with its draft named for validators.
const AUDIT_EVENT_JSON_SCHEMA = JSON.stringify({ $schema: 'https://json-schema.org/draft/2020-12/schema', ...AuditEventSchema }, null, 2);

const Readiness = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('unready')]),
  checks: Type.Record(Type.String(), Type.Object({ ok: Type.Boolean(), detail: Type.Optional(Type.String()) })),
});

export interface OperationalDeps {
  metrics: KmsMetrics;
  probe: () => Promise<Record<string, { ok: boolean; detail?: string }>>;
  openApiYaml: () => string;
}

/** The kernel's own public routes: metrics, liveness, readiness and the API documentation. */
export function operationalRoutes(deps: OperationalDeps): PublicRoute[] {
  const ui = koaSwagger({
    routePrefix: '/docs/',
    swaggerCdnUrl: '/docs/assets',
    swaggerVersion: 'ui',
    title: 'svc-kms API',
    favicon: '/docs/assets/ui/favicon-32x32.png',
    swaggerOptions: { url: '/docs/docs.yaml', supportedSubmitMethods: ['get', 'post', 'delete'] },
  });
  return [
    {
      method: 'GET', path: '/metrics', tag: 'Operational', summary: 'Prometheus metrics', produces: 'text/plain',
      handle: async (ctx) => {
        ctx.type = deps.metrics.registry.contentType;
        ctx.body = await deps.metrics.registry.metrics();
      },
    },
    {
      method: 'GET', path: '/healthz', tag: 'Operational', summary: 'Liveness', produces: 'application/json',
      response: Type.Object({ status: Type.Literal('ok') }),
      handle: async (ctx) => {
        ctx.body = { status: 'ok' };
      },
    },
    {
      method: 'GET', path: '/readyz', tag: 'Operational', summary: 'Readiness of every probed plugin (503 when one fails)', produces: 'application/json',
      response: Readiness,
      handle: async (ctx) => {
        const checks = await deps.probe();
        const ready = Object.values(checks).every((c) => c.ok);
        ctx.status = ready ? 200 : 503;
        ctx.body = { status: ready ? 'ready' : 'unready', checks };
      },
    },
    {
      method: 'GET', path: '/docs/docs.yaml', tag: 'Operational', summary: 'This OpenAPI 3.1 document', produces: 'application/yaml',
      handle: async (ctx) => {
        ctx.type = 'application/yaml';
        ctx.body = deps.openApiYaml();
      },
    },
    {
      method: 'GET', path: '/docs/audit-event.schema.json', tag: 'Operational', summary: 'JSON Schema of the canonical audit event that secondary sinks receive', produces: 'application/schema+json',
      handle: async (ctx) => {
        ctx.type = 'application/schema+json';
        ctx.set('Cache-Control', 'public, max-age=3600');
        ctx.body = AUDIT_EVENT_JSON_SCHEMA;
      },
    },
    {
      method: 'GET', path: '/docs/', tag: 'Operational', summary: 'Interactive API documentation (HTML)', produces: 'text/html',
      // The router matches /docs and /docs/ alike; the UI's relative links need the slash.
      handle: async (ctx) => {
        if (ctx.path === '/docs') return ctx.redirect('/docs/');
        await ui(ctx, async () => {});
      },
    },
    {
      method: 'GET', path: '/docs/assets/ui/:file', tag: 'Operational', summary: 'UI assets', produces: 'application/octet-stream', hidden: true,
      handle: async (ctx) => {
        const file = ctx.params.file === 'favicon-32x32.png' ? { file: 'favicon-32x32.png', type: 'image/png' } : UI_ASSETS[ctx.params.file ?? ''];
        if (!file) return;
        ctx.type = file.type;
        ctx.set('Cache-Control', 'public, max-age=86400');
        ctx.body = createReadStream(path.join(SWAGGER_DIST, file.file));
      },
    },
  ];
}
