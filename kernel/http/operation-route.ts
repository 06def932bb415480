import type { Context, Middleware } from 'koa';
import { authenticate } from '../auth/authenticate.ts';
import { isSvcError, SvcError } from '../errors.ts';
import type { KmsMetrics } from '../observability/metrics.ts';
import type { AnyOperation } from '../operations/operation.ts';
import type { OperationPipeline } from '../operations/pipeline.ts';
import { MODEL_HEADER, PROMPT_ID_HEADER, promptContext } from '../operations/prompt-context.ts';
import type { Principal } from '../model/index.ts';
import type { Authenticator, CredentialSource } from '../ports/authenticator.ts';
import type { BodyReader } from './body.ts';
import { toSvcError } from './errors-middleware.ts';

export interface HttpDoorDeps {
  pipeline: OperationPipeline;
  authenticator: Authenticator;
  metrics: KmsMetrics;
  readBody: BodyReader;
}

/** The `:name` segments of a path: the input fields the path carries. */
export const pathFields = (path: string): string[] => [...path.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]!);

/** The input fields an operation declares as integers: a query string (GET, DELETE) carries them as text. */
function integerFields(def: AnyOperation): string[] {
  const props = (def.input as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  return Object.entries(props)
    .filter(([, schema]) => schema.type === 'integer')
    .map(([name]) => name);
}

const INTEGER_TEXT = /^-?\d{1,15}$/;
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
const MODEL_HEADER_KEY = MODEL_HEADER.toLowerCase();
const PROMPT_ID_HEADER_KEY = PROMPT_ID_HEADER.toLowerCase();
/** A header as Koa's ctx.get reads it: repeated ones (an array) joined. */
const oneValue = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value.join(', ') : value;

/**
 * The query's integer fields as numbers; text that is not an integer is InvalidField, as in a JSON body.
 * The input comes back with the refusal (the bad field left as text) so that it still names the call's
 * resource: the pipeline refuses it after authorizing, as it refuses a bad value in a body.
 */
function queryInput(
  query: Record<string, unknown>,
  integers: string[],
): { input: Record<string, unknown>; invalid?: SvcError } {
  const input: Record<string, unknown> = { ...query };
  for (const name of integers) {
    const value = input[name];
    if (typeof value !== 'string') continue; // absent, or repeated (an array: the validator's BadRequest)
    if (!INTEGER_TEXT.test(value))
      return { input, invalid: new SvcError('InvalidField', `${name} must be an integer`) };
    input[name] = Number(value);
  }
  return { input };
}

/** The request's headers as the authenticator reads them (a class, so no closure is made per request). */
class KoaCredentials implements CredentialSource {
  constructor(private readonly ctx: Context) {}

  header(name: string): string | undefined {
    return this.ctx.get(name) || undefined;
  }
}

/**
 * The HTTP door of one operation: authenticate (before the body is read, so an anonymous caller cannot
 * make the service parse anything), then read the JSON body, map path parameters plus body (or query,
 * for GET) onto the operation's input, run the pipeline and map its result or error to the response.
 * A request without a valid credential has no principal and so no audit row; it is counted in metrics.
 */
export function operationRoute(def: AnyOperation, deps: HttpDoorDeps): Middleware {
  const http = def.http!;
  const fields = pathFields(http.path);
  // GET and DELETE take their options from the query (a DELETE body has no defined meaning in HTTP).
  const readsBody = http.method === 'POST' || http.method === 'PUT';
  const integers = integerFields(def);
  const requestHeaders = Object.entries(http.requestHeaders ?? {});
  const responseHeaders = Object.entries(http.responseHeaders ?? {});
  return async (ctx) => {
    let principal: Principal;
    try {
      principal = await authenticate(deps.authenticator, new KoaCredentials(ctx));
    } catch (err) {
      deps.metrics.observe(def.operation, isSvcError(err) ? err.code : 'InternalError', 0);
      throw err;
    }
    // Koa parses the query string when ctx.query is read: only GET operations take their input from it.
    let input: unknown;
    let rejected: SvcError | undefined;
    let context: Record<string, string> | undefined;
    try {
      // The model and prompt the caller acts for, checked before the body is read: a refused header is
      // the call's InvalidField, audited like any bad input.
      // Node's own lower-cased header names: most calls name neither, and then no context object is made.
      const model = ctx.req.headers[MODEL_HEADER_KEY];
      const promptId = ctx.req.headers[PROMPT_ID_HEADER_KEY];
      if (model !== undefined || promptId !== undefined) {
        context = promptContext(
          { value: oneValue(model), field: MODEL_HEADER },
          { value: oneValue(promptId), field: PROMPT_ID_HEADER },
        );
      }
      // A parsed body is this request's own object; the query object is Koa's, so queryInput copies it.
      if (readsBody) input = await deps.readBody(ctx);
      else ({ input, invalid: rejected } = queryInput(ctx.query, integers));
    } catch (err) {
      rejected = toSvcError(err);
    }
    const isObject = typeof input === 'object' && input !== null && !Array.isArray(input);
    if (!rejected && !isObject) rejected = new SvcError('BadRequest', 'request body must be a JSON object');
    // The path's parameters are in the input even when the door refused the rest of the request: they
    // name the resource the call is authorized and audited on, so a refused call on a key is the key's
    // (its key-scoped owner is told its bad value is 400, not refused as on no key). The pipeline
    // refuses the call after authorizing it, before anything reads the rest of the input.
    const named = (isObject ? input : {}) as Record<string, unknown>;
    for (const f of fields) named[f] = ctx.params[f];
    // A header's field comes from the header alone: the same name in a body or query is not it.
    for (const [field, header] of requestHeaders) {
      const value = ctx.get(header);
      if (value === '') delete named[field];
      else named[field] = value;
    }
    const result = await deps.pipeline.run(
      def.id,
      named,
      {
        principal,
        requestId: ctx.state.requestId as string,
        door: 'http',
        context,
        sourceIp: ctx.req.socket.remoteAddress ?? '',
      },
      rejected,
    );
    ctx.status = http.accepted?.when(result) ? 202 : (http.status ?? 200);
    for (const [name, header] of responseHeaders) {
      const value = header.value(result);
      if (value !== undefined) ctx.set(name, value);
    }
    if (result === undefined) return;
    // Serialised and encoded once here: an object body makes Koa stringify it, then scan the string
    // again for its byte length, then encode it on write (a batch answer is some 140 KB).
    // The header as Koa's `ctx.type = 'json'` sets it, without its media-type lookup (an LRU cache and a
    // mime table on every call).
    ctx.set('Content-Type', JSON_CONTENT_TYPE);
    ctx.body = Buffer.from(JSON.stringify(result));
  };
}
