import type { ServerResponse } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import {
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type JSONRPCMessage,
  type JSONRPCRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { isSvcError, type DoorHttpRequest, type OperationRunner, type Principal } from '../../../kernel/index.ts';
import { clientOfSession, clientSessionId, SESSION_HEADER } from './client-session.ts';
import { ExchangeTransport } from './exchange-transport.ts';
import { BodyError, readJsonBody } from './request-body.ts';
import { checkedMessages, isCheckedRequest, isInitialize } from './streamable-http-checks.ts';
import { answersJson } from './answer-json.ts';
import { toolCallParams } from './tool-call-params.ts';
import { callTool, headerContext, type CallOrigin, type ToolAnswer } from './tool-call.ts';
import type { ToolCatalogue } from './tools.ts';

export interface McpEndpointDeps {
  runner: OperationRunner;
  catalogue: ToolCatalogue;
  maxBodyBytes: number;
  /** The service's version, told to clients at initialize. */
  version: string;
  /** In oidc mode: the 401's WWW-Authenticate value for this request (names the resource metadata). */
  challenge?: (request: DoorHttpRequest) => string;
  /**
   * Who answers tools/call: the door itself (the default) or the SDK server, like every other method.
   * Internal, not a setting: the conformance test answers the same requests both ways and compares them.
   */
  toolCallsBy?: 'door' | 'sdk';
}

const SERVER_INFO_NAME = 'svc-kms';

/** A transport-level JSON-RPC error (the shape the SDK's transport answers with itself). */
function answerJsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

/**
 * What the SDK would answer unclearly: an empty batch (it answers 202 as if to notifications) and
 * tools/call arguments that are not an object (its schema check surfaces as -32603 Internal error).
 */
function malformedMessage(body: unknown): { code: number; message: string } | undefined {
  if (Array.isArray(body) && body.length === 0)
    return { code: ErrorCode.InvalidRequest, message: 'Invalid Request: an empty batch' };
  for (const m of Array.isArray(body) ? body : [body]) {
    const message = m as { method?: unknown; params?: { arguments?: unknown } } | null;
    if (message?.method !== 'tools/call') continue;
    const args = message.params?.arguments;
    if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args)))
      return { code: ErrorCode.InvalidParams, message: 'Invalid params: tools/call arguments must be an object' };
  }
  return undefined;
}

/**
 * The MCP server at /mcp: Streamable HTTP, stateless, JSON answers. Every request authenticates first
 * (401 before a byte of the body is read); the door reads and checks the POST itself and answers
 * tools/call (the operation pipeline) on the SDK's types, and its one SDK server (see
 * exchange-transport.ts) answers everything else: initialize, tools/list (the tools this principal may
 * call), ping, and the errors for unknown methods. tools/call is the door's own because the SDK server's
 * path for each request (its message classification and per-request AbortController, and the garbage
 * they make) cost about a quarter of a tools/call's CPU (docs/benchmarks-mcp.md); the answers are the same
 * (test/e2e/mcp-tool-call-conformance.test.ts sends the same requests both ways).
 */
export class McpEndpoint {
  private readonly transport = new ExchangeTransport<CallOrigin>();
  private readonly server: Server;

  constructor(private readonly deps: McpEndpointDeps) {
    this.server = serverOf(deps, this.transport);
  }

  /** Connects the door's one server to its transport (before the first request). */
  async start(): Promise<void> {
    await this.server.connect(this.transport);
  }

  async handle(request: DoorHttpRequest): Promise<void> {
    const { req, res } = request;
    const header = (name: string): string | undefined => {
      const v = req.headers[name.toLowerCase()];
      return Array.isArray(v) ? v[0] : v;
    };
    let principal: Principal;
    try {
      principal = await request.authenticate();
    } catch (err) {
      // Answered by the listener as REST answers it ({error, message}, 401), with this header kept.
      if (isSvcError(err) && err.code === 'Unauthorized' && this.deps.challenge)
        res.setHeader('WWW-Authenticate', this.deps.challenge(request));
      throw err;
    }
    if (req.method !== 'POST') {
      // Stateless: no server-sent event stream to open (GET) and no session to end (DELETE).
      res.setHeader('Allow', 'POST');
      return answerJsonRpcError(
        res,
        405,
        -32000,
        'Method not allowed: this MCP server is stateless and answers POST only',
      );
    }
    // A refused X-Svc-Model or X-Svc-Prompt-Id is 400 InvalidField for the whole request, as over REST.
    const context = headerContext(header);
    let body: unknown;
    try {
      body = await readJsonBody(req, this.deps.maxBodyBytes);
    } catch (err) {
      if (err instanceof BodyError)
        return answerJsonRpcError(res, err.status, err.status === 400 ? ErrorCode.ParseError : -32000, err.message);
      throw err;
    }
    const malformed = malformedMessage(body);
    if (malformed) return answerJsonRpcError(res, 400, malformed.code, malformed.message);
    if (isInitialize(body)) {
      const session = clientSessionId(body.params.clientInfo);
      if (session) res.setHeader(SESSION_HEADER, session);
    }
    const checked = checkedMessages(req.headers, body);
    if ('refusal' in checked)
      return answerJsonRpcError(res, checked.refusal.status, checked.refusal.code, checked.refusal.message);
    // Stateless: a client's notifications and answers concern no state here (and a cancellation must not
    // reach another caller's request on the shared server), so they are taken and dropped. A tools/call
    // therefore runs to its end, with its audit record, whoever answers it: the SDK server's per-request
    // AbortController is aborted only by a notifications/cancelled, which it is never handed.
    const requests = checked.messages.filter(isCheckedRequest);
    if (requests.length === 0) {
      res.writeHead(202);
      return void res.end();
    }
    const origin: CallOrigin = {
      principal,
      requestId: request.requestId,
      sourceIp: request.sourceIp,
      headerContext: context,
      client: clientOfSession(header(SESSION_HEADER)),
    };
    const answers =
      this.deps.toolCallsBy === 'sdk'
        ? await this.transport.dispatch(requests, origin)
        : await this.answer(requests, origin);
    // the client went away; the calls ran to their end (and their audit)
    if (res.destroyed || res.writableEnded) return;
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(answersJson(answers));
  }

  /**
   * The answers to a POST's requests, in order: the door's own tools/calls, the rest from the SDK server.
   * All of them run at once, as the SDK server runs a batch's requests.
   */
  private async answer(requests: readonly JSONRPCRequest[], origin: CallOrigin): Promise<JSONRPCMessage[]> {
    if (requests.length === 1) {
      const request = requests[0]!;
      return isDoorToolCall(request)
        ? [await this.toolCall(request, origin)]
        : this.transport.dispatch(requests, origin);
    }
    const toServer = requests.filter((r) => !isDoorToolCall(r));
    const served = toServer.length > 0 ? this.transport.dispatch(toServer, origin) : undefined;
    const own = requests.map((r) => (isDoorToolCall(r) ? this.toolCall(r, origin) : undefined));
    const fromServer = (await served) ?? [];
    let next = 0;
    return Promise.all(own.map((answer) => answer ?? fromServer[next++]!));
  }

  /** One tools/call answered as the SDK server answers it with the door's handler (see errorAnswer). */
  private async toolCall(request: JSONRPCRequest, origin: CallOrigin): Promise<JSONRPCMessage> {
    try {
      return { result: await answerToolCall(this.deps, request.params, origin), jsonrpc: '2.0', id: request.id };
    } catch (error) {
      return errorAnswer(request.id, error);
    }
  }
}

/**
 * A tools/call the door answers itself: all but a task-augmented one (`params.task`), which the SDK
 * server refuses before any handler since this server offers no tasks; it goes to the SDK server, which
 * answers it (refused or, when its `task` is not one the SDK reads as such, by the same handler).
 */
function isDoorToolCall(request: JSONRPCRequest): boolean {
  return request.method === 'tools/call' && (request.params as { task?: unknown } | undefined)?.task === undefined;
}

/**
 * A handler's failure as the SDK server's Protocol answers it: its code when an integer (else -32603), its message, its
 * data.
 */
function errorAnswer(id: JSONRPCRequest['id'], error: unknown): JSONRPCMessage {
  const e = error as { code?: unknown; message?: string; data?: unknown };
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: Number.isSafeInteger(e.code) ? (e.code as number) : ErrorCode.InternalError,
      message: e.message ?? 'Internal error',
      ...(e.data !== undefined && { data: e.data }),
    },
  };
}

/**
 * A tools/call's answer, the same code for the door's path and the SDK server's: the params checked, the tool found,
 * the call run.
 */
async function answerToolCall(deps: McpEndpointDeps, rawParams: unknown, origin: CallOrigin): Promise<ToolAnswer> {
  const params = toolCallParams(rawParams);
  const tool = deps.catalogue.get(params.name);
  if (!tool)
    throw new McpError(
      ErrorCode.InvalidParams,
      `unknown tool ${JSON.stringify(params.name.slice(0, 64))}; tools/list names the tools you may call`,
    );
  return callTool(deps.runner, tool, params.arguments, params.meta, origin);
}

/**
 * The one SDK server of the door, its handlers told the caller of each request by the transport. It
 * validates nothing with a JSON Schema validator (that is for answers a client sends back, such as
 * elicitation), yet a server left to itself builds a fresh Ajv instance: it is given a plain one.
 */
function serverOf(deps: McpEndpointDeps, transport: ExchangeTransport<CallOrigin>): Server {
  const { runner, catalogue } = deps;
  const server = new Server(
    { name: SERVER_INFO_NAME, version: deps.version },
    { capabilities: { tools: { listChanged: false } }, jsonSchemaValidator: new AjvJsonSchemaValidator() },
  );
  const originOf = (requestId: string | number): CallOrigin => {
    const origin = transport.callerOf(requestId);
    // Cannot happen: the transport forgets a request only when its answer is sent.
    if (!origin) throw new McpError(ErrorCode.InternalError, 'the request has no caller');
    return origin;
  };
  server.setRequestHandler(ListToolsRequestSchema, (_request, extra) => ({
    tools: catalogue.of(runner.permitted(originOf(extra.requestId).principal)).map((t) => t.listing),
  }));
  // A tools/call reaches this server only when task-augmented (see isDoorToolCall) or when the endpoint
  // is told to hand it over (toolCallsBy 'sdk'); it runs the door's own code for it, answerToolCall.
  // tools/call is the server's fallback handler rather than a registered one: the SDK server wraps a
  // registered tools/call in two more zod parses of the request and one of the answer (a copy of the
  // REST answer on every call). This handler reads the three params it uses with a plain check, and
  // its answers come from toolAnswer alone, whose shape the tests check against the SDK's result schema.
  // Any other method without a handler is answered as the SDK answers one: -32601 Method not found.
  server.fallbackRequestHandler = async (request, extra) => {
    if (request.method !== 'tools/call') throw new McpError(ErrorCode.MethodNotFound, 'Method not found');
    return answerToolCall(deps, request.params, originOf(extra.requestId));
  };
  return server;
}
