import { Type } from '@sinclair/typebox';
import type { Context } from 'koa';
import { AuditEventSchema } from '../audit/audit-event-schema.ts';
import { authenticate } from '../auth/authenticate.ts';
import type { KmsMetrics } from '../observability/metrics.ts';
import type { Authenticator } from '../ports/authenticator.ts';
import type { Logger } from '../ports/logger.ts';
import { serveDocsAsset, serveDocsPage } from './docs-page.ts';
import {
  loadConsole,
  redirectToConsole,
  serveConsoleAsset,
  serveConsoleNotFound,
  serveConsolePage,
} from './console-page.ts';
import { ReadinessReport, ReadinessSchema, type ReadinessChecks } from './readiness.ts';
import type { PublicRoute } from './route.ts';

// The TypeBox schema is JSON Schema already; serialized once, with its draft named for validators.
const AUDIT_EVENT_JSON_SCHEMA = JSON.stringify(
  { $schema: 'https://json-schema.org/draft/2020-12/schema', ...AuditEventSchema },
  null,
  2,
);

export interface OperationalDeps {
  metrics: KmsMetrics;
  /** The whole node's metrics when this process is one of several workers; this process's own registry otherwise. */
  nodeMetrics?: () => Promise<string>;
  probe: () => Promise<ReadinessChecks>;
  openApiYaml: () => string;
  /** Decides who may read a failing check's detail; without it nobody may (it is logged either way). */
  authenticator?: Authenticator;
  logger: Logger;
}

/**
 * Whether the caller is an authenticated Human. /readyz never refuses a caller: a missing or bad
 * credential only means the anonymous answer.
 */
async function isHuman(authenticator: Authenticator | undefined, ctx: Context): Promise<boolean> {
  if (!authenticator) return false;
  try {
    return (await authenticate(authenticator, { header: (name) => ctx.get(name) || undefined })).kind === 'Human';
  } catch {
    return false;
  }
}

/** The kernel's own public routes: metrics, liveness, readiness and the API documentation. */
export function operationalRoutes(deps: OperationalDeps): PublicRoute[] {
  const readiness = new ReadinessReport(deps.logger);
  const consoleFiles = loadConsole(deps.logger);
  return [
    {
      method: 'GET',
      path: '/metrics',
      operationId: 'GetMetrics',
      tag: 'Operational',
      summary: 'Prometheus metrics',
      produces: 'text/plain',
      handle: async (ctx) => {
        ctx.type = deps.metrics.registry.contentType;
        ctx.body = deps.nodeMetrics ? await deps.nodeMetrics() : await deps.metrics.registry.metrics();
      },
    },
    {
      method: 'GET',
      path: '/healthz',
      operationId: 'GetLiveness',
      tag: 'Operational',
      summary: 'Liveness',
      produces: 'application/json',
      response: Type.Object({ status: Type.Literal('ok') }, { title: 'Liveness' }),
      handle: async (ctx) => {
        ctx.body = { status: 'ok' };
      },
    },
    {
      method: 'GET',
      path: '/readyz',
      operationId: 'GetReadiness',
      tag: 'Operational',
      summary:
        "Readiness of every probed plugin (503 when one fails): each check's " +
        'name and state; why a check fails is logged, and shown to an ' +
        'authenticated Human only',
      produces: 'application/json',
      response: ReadinessSchema,
      unavailable: 'At least one check failed: take the node out of rotation',
      handle: async (ctx) => {
        const [checks, human] = await Promise.all([deps.probe(), isHuman(deps.authenticator, ctx)]);
        const { ready, body } = readiness.answer(checks, human);
        ctx.status = ready ? 200 : 503;
        ctx.body = body;
      },
    },
    {
      method: 'GET',
      path: '/docs/docs.yaml',
      operationId: 'GetOpenApiDocument',
      tag: 'Operational',
      summary: 'This OpenAPI 3.1 document',
      produces: 'application/yaml',
      handle: async (ctx) => {
        ctx.type = 'application/yaml';
        ctx.body = deps.openApiYaml();
      },
    },
    {
      method: 'GET',
      path: '/docs/audit-event.schema.json',
      operationId: 'GetAuditEventSchema',
      tag: 'Operational',
      summary: 'JSON Schema of the canonical audit event that secondary sinks receive',
      produces: 'application/schema+json',
      handle: async (ctx) => {
        ctx.type = 'application/schema+json';
        ctx.set('Cache-Control', 'public, max-age=3600');
        ctx.body = AUDIT_EVENT_JSON_SCHEMA;
      },
    },
    {
      method: 'GET',
      path: '/docs/',
      operationId: 'GetDocumentationPage',
      tag: 'Operational',
      summary: 'Interactive API documentation (HTML)',
      produces: 'text/html',
      hidden: true,
      handle: async (ctx) => serveDocsPage(ctx),
    },
    {
      // Registered after /docs/, which the router would otherwise also match here; the UI's relative links need the
      // slash.
      method: 'GET',
      path: '/docs',
      operationId: 'GetDocumentationRedirect',
      tag: 'Operational',
      summary: 'To the interactive API documentation',
      produces: 'text/html',
      hidden: true,
      handle: async (ctx) => ctx.redirect('/docs/'),
    },
    {
      method: 'GET',
      path: '/docs/assets/ui/:file',
      operationId: 'GetDocumentationAsset',
      tag: 'Operational',
      summary: 'UI assets',
      produces: 'application/octet-stream',
      hidden: true,
      handle: async (ctx) => serveDocsAsset(ctx, ctx.params.file ?? ''),
    },
    {
      method: 'GET',
      path: '/console/',
      operationId: 'GetConsolePage',
      tag: 'Operational',
      summary: 'Web console (HTML)',
      produces: 'text/html',
      hidden: true,
      handle: async (ctx) => serveConsolePage(ctx, consoleFiles),
    },
    {
      // Registered after /console/, which the router would otherwise also match here (a trailing slash is optional).
      method: 'GET',
      path: '/console',
      operationId: 'GetConsoleRedirect',
      tag: 'Operational',
      summary: 'To the web console',
      produces: 'text/html',
      hidden: true,
      handle: async (ctx) => redirectToConsole(ctx),
    },
    {
      method: 'GET',
      path: '/console/assets/:file',
      operationId: 'GetConsoleAsset',
      tag: 'Operational',
      summary: 'Web console assets',
      produces: 'application/octet-stream',
      hidden: true,
      handle: async (ctx) => serveConsoleAsset(ctx, consoleFiles, ctx.params.file ?? ''),
    },
    {
      method: 'GET',
      path: '/console/*rest',
      operationId: 'GetConsoleNotFound',
      tag: 'Operational',
      summary: 'Web console: unknown path',
      produces: 'text/plain',
      hidden: true,
      handle: async (ctx) => serveConsoleNotFound(ctx),
    },
  ];
}
