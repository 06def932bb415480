import type { TSchema } from '@sinclair/typebox';
import { stringify } from 'yaml';
import { ERROR_CATALOGUE } from '../errors.ts';
import { ErrorBody } from '../../schemas/error.ts';
import type { GuardedRoute, RouteDef } from './route.ts';

// TypeBox marks its schemas with symbol keys; a JSON round trip leaves plain JSON Schema.
const plain = (schema: TSchema): unknown => JSON.parse(JSON.stringify(schema));

const errorResponse = (codes: string[]) => ({
  description: codes.map((c) => `${c}: ${ERROR_CATALOGUE[c as keyof typeof ERROR_CATALOGUE].when}`).join('; '),
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

function guardedErrors(route: GuardedRoute): Record<string, unknown> {
  const codes = ['Unauthorized', 'PermissionDenied', 'InternalError', ...(route.body || route.query ? ['BadRequest', 'InvalidField'] : []), ...(route.errors ?? [])];
  if (route.body) codes.push('PayloadTooLarge', 'UnsupportedMediaType');
  const byStatus = new Map<number, string[]>();
  for (const code of new Set(codes)) {
    const status = ERROR_CATALOGUE[code as keyof typeof ERROR_CATALOGUE].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries([...byStatus].sort(([a], [b]) => a - b).map(([status, list]) => [String(status), errorResponse(list)]));
}

function queryParameters(schema: TSchema | undefined): unknown[] {
  const props = (schema?.properties ?? {}) as Record<string, TSchema>;
  return Object.entries(props).map(([name, s]) => ({ name, in: 'query', required: (schema?.required ?? []).includes(name), schema: plain(s) }));
}

/** The OpenAPI 3.1 document, generated from the same route table the host mounts. */
export function buildOpenApi(routes: RouteDef[], info: { version: string }): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    if (route.kind === 'public' && route.hidden) continue;
    const path = route.path.replace(/:([A-Za-z]+)/g, '{$1}');
    const pathParams = [...route.path.matchAll(/:([A-Za-z]+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    const op: Record<string, unknown> = { summary: route.summary, tags: [route.tag] };
    if (route.kind === 'public') {
      op.security = [];
      op.responses = { '200': { description: 'OK', content: { [route.produces]: route.response ? { schema: plain(route.response) } : {} } } };
    } else {
      op.operationId = `${route.method.toLowerCase()}${path.replace(/[{}]/g, '').split('/').map((s) => s.charAt(0).toUpperCase() + s.slice(1)).join('')}`;
      op['x-svc-operation'] = route.operation;
      if (route.humanOnly) op['x-svc-human-only'] = true;
      const params = [...pathParams, ...queryParameters(route.query)];
      if (params.length) op.parameters = params;
      if (route.body) op.requestBody = { required: false, content: { 'application/json': { schema: plain(route.body) } } };
      op.responses = {
        [String(route.successStatus ?? 200)]: { description: 'Success', content: { 'application/json': { schema: plain(route.response) } } },
        ...guardedErrors(route),
      };
    }
    if (route.kind === 'public' && pathParams.length) op.parameters = pathParams;
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: op };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'svc-kms', version: info.version, description: 'Key management service: keys, lifecycle, cryptographic operations and audit.' },
    servers: [{ url: '/' }],
    security: [{ devUser: [] }, { bearer: [] }],
    tags: [...new Set(routes.filter((r) => !(r.kind === 'public' && r.hidden)).map((r) => r.tag))].map((name) => ({ name })),
    paths,
    components: {
      schemas: { Error: plain(ErrorBody) },
      securitySchemes: {
        devUser: { type: 'apiKey', in: 'header', name: 'X-Svc-User', description: 'auth.kind dev: the caller becomes Human(<value>); X-Svc-Groups sets groups.' },
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'auth.kind hmac or oidc.' },
      },
    },
  };
}

export const openApiYaml = (doc: Record<string, unknown>): string => stringify(doc, { aliasDuplicateObjects: false });
