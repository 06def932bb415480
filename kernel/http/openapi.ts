import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import { stringify } from 'yaml';
import { ERROR_CATALOGUE, type ErrorCode } from '../errors.ts';
import { ErrorBody } from '../../schemas/error.ts';
import type { AnyOperation } from '../operations/operation.ts';
import { pathFields } from './operation-route.ts';
import type { PublicRoute } from './route.ts';

// TypeBox marks its schemas with symbol keys; a JSON round trip leaves plain JSON Schema.
const plain = (schema: TSchema): unknown => JSON.parse(JSON.stringify(schema));
const openApiPath = (path: string) => path.replace(/:([A-Za-z]+)/g, '{$1}');

const errorResponse = (codes: string[]) => ({
  description: codes.map((c) => `${c}: ${ERROR_CATALOGUE[c as ErrorCode].when}`).join('; '),
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

/** Every error an operation can answer through HTTP, grouped by status. */
function operationErrors(def: AnyOperation, hasInput: boolean, hasBody: boolean): Record<string, unknown> {
  const codes: string[] = ['Unauthorized', 'PermissionDenied', 'TooManyRequests', 'InternalError', 'ServiceUnavailable', ...(hasInput ? ['BadRequest', 'InvalidField'] : []), ...(def.errors ?? [])];
  if (hasBody) codes.push('PayloadTooLarge', 'UnsupportedMediaType');
  const byStatus = new Map<number, string[]>();
  for (const code of new Set(codes)) {
    const status = ERROR_CATALOGUE[code as ErrorCode].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries([...byStatus].sort(([a], [b]) => a - b).map(([status, list]) => [String(status), errorResponse(list)]));
}

function operationEntry(def: AnyOperation): [string, string, Record<string, unknown>] {
  const http = def.http!;
  const fromPath = pathFields(http.path);
  const input = def.input as TObject;
  const rest = Type.Omit(input, fromPath);
  const restProps = Object.keys(rest.properties ?? {});
  const parameters: unknown[] = fromPath.map((name) => ({ name, in: 'path', required: true, schema: plain(input.properties[name] ?? Type.String()) }));
  const op: Record<string, unknown> = { operationId: def.id, summary: def.summary, tags: [def.group], 'x-svc-operation': def.operation };
  if (def.attributes?.humanOnly) op['x-svc-human-only'] = true;
  const hasBody = http.method !== 'GET' && restProps.length > 0;
  if (http.method === 'GET') {
    for (const name of restProps) parameters.push({ name, in: 'query', required: (rest.required ?? []).includes(name), schema: plain((rest.properties as Record<string, TSchema>)[name]!) });
  } else if (hasBody) {
    op.requestBody = { required: (rest.required ?? []).length > 0, content: { 'application/json': { schema: plain(rest) } } };
  }
  if (parameters.length) op.parameters = parameters;
  op.responses = {
    [String(http.status ?? 200)]: { description: 'Success', content: { 'application/json': { schema: plain(def.output) } } },
    ...operationErrors(def, restProps.length > 0, hasBody),
  };
  return [openApiPath(http.path), http.method.toLowerCase(), op];
}

function publicEntry(route: PublicRoute): [string, string, Record<string, unknown>] {
  const op: Record<string, unknown> = { summary: route.summary, tags: [route.tag], security: [] };
  const params = pathFields(route.path).map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
  if (params.length) op.parameters = params;
  op.responses = { '200': { description: 'OK', content: { [route.produces]: route.response ? { schema: plain(route.response) } : {} } } };
  return [openApiPath(route.path), 'get', op];
}

/** The OpenAPI 3.1 document, generated from the same declarations the service runs. */
export function buildOpenApi(operations: AnyOperation[], publicRoutes: PublicRoute[], info: { version: string }): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const entries = [...operations.filter((o) => o.http).map(operationEntry), ...publicRoutes.filter((r) => !r.hidden).map(publicEntry)];
  for (const [path, method, op] of entries) paths[path] = { ...paths[path], [method]: op };
  const tags = [...new Set([...operations.filter((o) => o.http).map((o) => o.group), ...publicRoutes.filter((r) => !r.hidden).map((r) => r.tag)])];
  return {
    openapi: '3.1.0',
    info: { title: 'svc-kms', version: info.version, description: 'Key management service: keys, lifecycle, cryptographic operations and audit.' },
    servers: [{ url: '/' }],
    security: [{ devUser: [] }, { bearer: [] }],
    tags: tags.map((name) => ({ name })),
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
