import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import { stringify } from 'yaml';
import { ERROR_CATALOGUE, type ErrorCode } from '../errors.ts';
import { ErrorBody } from './error-body.ts';
import type { AnyOperation } from '../operations/operation.ts';
import { MODEL_HEADER, PROMPT_FIELD_MAX_CHARS, PROMPT_ID_HEADER } from '../operations/prompt-context.ts';
import { SchemaComponents } from './openapi-components.ts';
import { pathFields } from './operation-route.ts';
import type { PublicRoute } from './route.ts';

const openApiPath = (path: string) => path.replace(/:([A-Za-z]+)/g, '{$1}');
const ERROR_REF = { $ref: '#/components/schemas/Error' };

/** The headers every operation takes: who the call acts for, recorded in its audit context. */
const PROMPT_PARAMETERS = {
  SvcModel: {
    name: MODEL_HEADER,
    in: 'header',
    required: false,
    schema: { type: 'string', maxLength: PROMPT_FIELD_MAX_CHARS },
    description: `The model the call acts for, audited as context agent.model (any principal kind). At most ${PROMPT_FIELD_MAX_CHARS} characters, no control, separator, bidirectional or zero-width characters (InvalidField otherwise).`,
  },
  SvcPromptId: {
    name: PROMPT_ID_HEADER,
    in: 'header',
    required: false,
    schema: { type: 'string', maxLength: PROMPT_FIELD_MAX_CHARS },
    description: `The prompt the call acts for, audited as context agent.promptId (GET /v1/audit?promptId= finds its records). At most ${PROMPT_FIELD_MAX_CHARS} characters, no control, separator, bidirectional or zero-width characters (InvalidField otherwise).`,
  },
};
const PROMPT_PARAMETER_REFS = Object.keys(PROMPT_PARAMETERS).map((name) => ({
  $ref: `#/components/parameters/${name}`,
}));

const errorResponse = (codes: string[]) => ({
  description: codes.map((c) => `${c}: ${ERROR_CATALOGUE[c as ErrorCode].when}`).join('; '),
  content: { 'application/json': { schema: ERROR_REF } },
});

/** Responses for the given error codes, one per status. */
function errorResponses(codes: string[]): Record<string, unknown> {
  const byStatus = new Map<number, string[]>();
  for (const code of new Set(codes)) {
    const status = ERROR_CATALOGUE[code as ErrorCode].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus].sort(([a], [b]) => a - b).map(([status, list]) => [String(status), errorResponse(list)]),
  );
}

/** Every error an operation can answer through HTTP. */
function operationErrors(def: AnyOperation, hasInput: boolean, hasBody: boolean): string[] {
  const codes: string[] = [
    'Unauthorized',
    'PermissionDenied',
    'TooManyRequests',
    'InternalError',
    'ServiceUnavailable',
    'InvalidField',
    ...(hasInput ? ['BadRequest'] : []),
    ...(def.errors ?? []),
  ];
  if (hasBody) codes.push('PayloadTooLarge', 'UnsupportedMediaType');
  return codes;
}

/**
 * The input's shapes: one object, or (a call that also takes a batch) the object branches of its anyOf.
 * Each shape holds the path fields; the body is a shape minus them.
 */
const inputShapes = (input: TSchema): TObject[] =>
  Array.isArray(input.anyOf) ? (input.anyOf as TObject[]) : [input as TObject];

/** The component name of a shape after the first: its title with Input (or Response) replaced, else numbered. */
const shapeName = (shape: TSchema, fallback: string, from: string, to: string) =>
  typeof shape.title === 'string' ? shape.title.replace(new RegExp(`${from}$`), '') + to : fallback;

function operationEntry(def: AnyOperation, components: SchemaComponents): [string, string, Record<string, unknown>] {
  const http = def.http!;
  const fromPath = pathFields(http.path);
  const fromHeaders = Object.entries(http.requestHeaders ?? {});
  // Fields the path or a header carries are not in the body (or the query).
  const elsewhere = [...fromPath, ...fromHeaders.map(([field]) => field)];
  const shapes = inputShapes(def.input);
  const input = shapes[0]!;
  const rest = Type.Omit(input, elsewhere);
  const restProps = Object.keys(rest.properties ?? {});
  const parameters: unknown[] = fromPath.map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: components.use(input.properties[name] ?? Type.String()),
  }));
  for (const [field, header] of fromHeaders) {
    const { description, ...schema } = (input.properties[field] ?? Type.String()) as TSchema;
    parameters.push({
      name: header,
      in: 'header',
      required: (input.required ?? []).includes(field),
      ...(description ? { description } : {}),
      schema: components.use(schema),
    });
  }
  const op: Record<string, unknown> = {
    operationId: operationId(def.id),
    summary: def.summary,
    tags: [def.group],
    'x-svc-operation': def.operation,
  };
  if (def.attributes?.humanOnly) op['x-svc-human-only'] = true;
  if (def.attributes?.agentsRefused) op['x-svc-agents-refused'] = true;
  const hasBody = (http.method === 'POST' || http.method === 'PUT') && restProps.length > 0;
  if (http.method !== 'POST' && http.method !== 'PUT') {
    for (const name of restProps)
      parameters.push({
        name,
        in: 'query',
        required: (rest.required ?? []).includes(name),
        schema: components.use((rest.properties as Record<string, TSchema>)[name]!),
      });
  } else if (hasBody) {
    const bodies = shapes.map((shape, i) => {
      const { title: _, ...body } = JSON.parse(JSON.stringify(i === 0 ? rest : Type.Omit(shape, elsewhere))) as Record<
        string,
        unknown
      >;
      return components.use(
        body,
        i === 0 ? `${def.id}Request` : shapeName(shape, `${def.id}Request${i + 1}`, 'Input', 'Request'),
      );
    });
    // Rotate's and revoke's bodies may be left out (every field optional); the others are required.
    const schema = bodies.length === 1 ? bodies[0] : { oneOf: bodies };
    op.requestBody = {
      required: shapes.some((shape) => (Type.Omit(shape, elsewhere).required ?? []).length > 0),
      content: { 'application/json': { schema } },
    };
  }
  op.parameters = [...parameters, ...PROMPT_PARAMETER_REFS];
  const outputs = Array.isArray(def.output.anyOf) ? (def.output.anyOf as TSchema[]) : [def.output];
  const answers = outputs.map((output, i) =>
    components.use(output, output.title ?? (i === 0 ? `${def.id}Response` : `${def.id}Response${i + 1}`)),
  );
  op.responses = {
    [String(http.status ?? 200)]: {
      description: 'Success',
      ...(http.responseHeaders
        ? {
            headers: Object.fromEntries(
              Object.entries(http.responseHeaders).map(([name, h]) => [
                name,
                { description: h.description, schema: { type: 'string' } },
              ]),
            ),
          }
        : {}),
      content: { 'application/json': { schema: answers.length === 1 ? answers[0] : { oneOf: answers } } },
    },
    ...(http.accepted
      ? {
          '202': {
            description: 'Accepted: done later',
            content: {
              'application/json': {
                schema: components.use(
                  http.accepted.output,
                  (http.accepted.output as { title?: string }).title ?? `${def.id}AcceptedResponse`,
                ),
              },
            },
          },
        }
      : {}),
    ...errorResponses(operationErrors(def, restProps.length > 0, hasBody)),
  };
  return [openApiPath(http.path), http.method.toLowerCase(), op];
}

/** operationIds are identifiers in lower camel case: what generated clients name their methods. */
const operationId = (id: string) => id.charAt(0).toLowerCase() + id.slice(1);

function publicEntry(route: PublicRoute, components: SchemaComponents): [string, string, Record<string, unknown>] {
  const op: Record<string, unknown> = {
    operationId: operationId(route.operationId),
    summary: route.summary,
    tags: [route.tag],
    security: [],
  };
  const params = pathFields(route.path).map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  if (params.length) op.parameters = params;
  const content = {
    [route.produces]: { schema: route.response ? components.use(route.response) : { type: 'string' } },
  };
  op.responses = {
    '200': { description: 'OK', content },
    ...(route.unavailable ? { '503': { description: route.unavailable, content } } : {}),
    // Answered by the HTTP parser before any route runs.
    ...errorResponses(['URITooLong', 'HeadersTooLarge']),
  };
  return [openApiPath(route.path), 'get', op];
}

export interface OpenApiInfo {
  version: string;
  /** Descriptions of the documentation groups (tags), as the plugins declare them. */
  groups?: Record<string, string>;
}

/** The OpenAPI 3.1 document, generated from the same declarations the service runs. */
export function buildOpenApi(
  operations: AnyOperation[],
  publicRoutes: PublicRoute[],
  info: OpenApiInfo,
): Record<string, unknown> {
  const components = new SchemaComponents();
  components.use(ErrorBody, 'Error');
  const paths: Record<string, Record<string, unknown>> = {};
  const documented = publicRoutes.filter((r) => !r.hidden);
  const entries = [
    ...operations.filter((o) => o.http).map((o) => operationEntry(o, components)),
    ...documented.map((r) => publicEntry(r, components)),
  ];
  for (const [path, method, op] of entries) paths[path] = { ...paths[path], [method]: op };
  const tags = [...new Set([...operations.filter((o) => o.http).map((o) => o.group), ...documented.map((r) => r.tag)])];
  const groups: Record<string, string> = {
    Operational: 'Metrics, health, readiness and this document; no credential needed.',
    ...info.groups,
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'svc-kms',
      version: info.version,
      description:
        'Key management service: keys, lifecycle, cryptographic operations and ' +
        'audit. Every error answers `{error, message}` (the Error schema).',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: '/' }],
    security: [{ devUser: [] }, { bearer: [] }],
    tags: tags.map((name) => ({ name, description: groups[name] ?? `${name} operations.` })),
    paths,
    components: {
      schemas: components.schemas,
      parameters: PROMPT_PARAMETERS,
      securitySchemes: {
        devUser: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Svc-User',
          description: 'auth.kind dev: the caller becomes Human(<value>); X-Svc-Groups sets groups.',
        },
        bearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'auth.kind hmac or oidc, and agent tokens.',
        },
      },
    },
  };
}

export const openApiYaml = (doc: Record<string, unknown>): string => stringify(doc, { aliasDuplicateObjects: false });
