import type { ServerResponse } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { CallToolRequestSchema, ErrorCode, isInitializeRequest, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { isSvcError, type DoorHttpRequest, type OperationRunner, type Principal } from '../../kernel/index.ts';
import { clientOfSession, clientSessionId, SESSION_HEADER } from './client-session.ts';
import { BodyError, readJsonBody } from './request-body.ts';
import { callTool, headerContext, type CallOrigin } from './tool-call.ts';
import type { ToolCatalogue } from './tools.ts';

export interface McpEndpointDeps {
  runner: OperationRunner;
  catalogue: ToolCatalogue;
  maxBodyBytes: number;
  /** The service's version, told to clients at initialize. */
  version: string;
  /** In oidc mode: the 401's WWW-Authenticate value for this request (names the resource metadata). */
  challenge?: (request: DoorHttpRequest) => string;
}

const SERVER_INFO_NAME = 'svc-kms';

/**
 * The JSON Schema validator every per-request server shares. A server left to itself builds a fresh Ajv
 * instance (every format and keyword added anew): about a third of the CPU of a tools/call went there.
 * This server validates nothing with it (it is for answers a client sends back, such as elicitation).
 */
const SHARED_VALIDATOR = new AjvJsonSchemaValidator();

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
  if (Array.isArray(body) && body.length === 0) return { code: ErrorCode.InvalidRequest, message: 'Invalid Request: an empty batch' };
  for (const m of Array.isArray(body) ? body : [body]) {
    const message = m as { method?: unknown; params?: { arguments?: unknown } } | null;
    if (message?.method !== 'tools/call') continue;
    const args = message.params?.arguments;
    if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) return { code: ErrorCode.InvalidParams, message: 'Invalid params: tools/call arguments must be an object' };
  }
  return undefined;
}

/**
 * The MCP server at /mcp: Streamable HTTP, stateless, JSON answers. Every request authenticates first
 * (401 before a byte of the body is read), then gets its own SDK server and transport, which answer
 * initialize, tools/list (the tools this principal may call) and tools/call (the operation pipeline).
 */
export class McpEndpoint {
  constructor(private readonly deps: McpEndpointDeps) {}

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
      if (isSvcError(err) && err.code === 'Unauthorized' && this.deps.challenge) res.setHeader('WWW-Authenticate', this.deps.challenge(request));
      throw err;
    }
    if (req.method !== 'POST') {
      // Stateless: no server-sent event stream to open (GET) and no session to end (DELETE).
      res.setHeader('Allow', 'POST');
      return answerJsonRpcError(res, 405, -32000, 'Method not allowed: this MCP server is stateless and answers POST only');
    }
    // A refused X-Svc-Model or X-Svc-Prompt-Id is 400 InvalidField for the whole request, as over REST.
    const context = headerContext(header);
    let body: unknown;
    try {
      body = await readJsonBody(req, this.deps.maxBodyBytes);
    } catch (err) {
      if (err instanceof BodyError) return answerJsonRpcError(res, err.status, err.status === 400 ? ErrorCode.ParseError : -32000, err.message);
      throw err;
    }
    const malformed = malformedMessage(body);
    if (malformed) return answerJsonRpcError(res, 400, malformed.code, malformed.message);
    if (isInitializeRequest(body)) {
      const session = clientSessionId(body.params.clientInfo);
      if (session) res.setHeader(SESSION_HEADER, session);
    }
    const origin: CallOrigin = { principal, requestId: request.requestId, sourceIp: request.sourceIp, headerContext: context, client: clientOfSession(header(SESSION_HEADER)) };
    const server = this.serverFor(origin);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.once('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  /** An SDK server for one request, its handlers bound to the caller. */
  private serverFor(origin: CallOrigin): Server {
    const { runner, catalogue } = this.deps;
    const server = new Server({ name: SERVER_INFO_NAME, version: this.deps.version }, { capabilities: { tools: { listChanged: false } }, jsonSchemaValidator: SHARED_VALIDATOR });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: catalogue.of(runner.permitted(origin.principal)).map((t) => t.listing) }));
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      const tool = catalogue.get(request.params.name);
      if (!tool) throw new McpError(ErrorCode.InvalidParams, `unknown tool ${JSON.stringify(request.params.name.slice(0, 64))}; tools/list names the tools you may call`);
      return callTool(runner, tool, request.params.arguments ?? {}, request.params._meta as Record<string, unknown> | undefined, origin);
    });
    return server;
  }
}
