import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Command } from 'commander';
import { fetchWithTls } from '../../sdk/tls-fetch.ts';
import { credentialHeaders } from '../../sdk/transport.ts';
import { examples } from '../command-kit.ts';
import { clientTls, resolveConnection, type GlobalOptions } from '../connection.ts';
import { UsageError } from '../exit-codes.ts';
import { FORWARDER_ERRORS, McpForwarder, type Failure } from '../mcp-forwarder.ts';

/** `svc mcp`: the service's MCP tools over stdio, for MCP clients that start a local command. */
export function registerMcpCommand(program: Command): void {
  examples(
    program
      .command('mcp')
      .description("Serve the service's MCP tools over stdio, forwarding every message to its /mcp")
      .addHelpText(
        'after',
        [
          '',
          "Reads JSON-RPC messages from stdin, one a line, and writes the service's answers to stdout; nothing else",
          'goes to stdout, diagnostics go to stderr. The service lists the tools the credential may call, runs and',
          "audits every call. Credentials and TLS are the other commands' (svc login, or --token / SVC_TOKEN);",
          'the global --model / --prompt-id (SVC_MODEL / SVC_PROMPT_ID) are sent with every message.',
        ].join('\n'),
      )
      .action(async (_opts, cmd: Command) => serve(cmd.optsWithGlobals<GlobalOptions>())),
    'svc mcp',
    'SVC_TOKEN="$AGENT_JWT" svc mcp --server https://kms.example.com --model claude-sonnet-4 --prompt-id run-42',
  );
}

async function serve(flags: GlobalOptions): Promise<void> {
  const connection = resolveConnection(flags);
  const endpoint = new URL('/mcp', connection.server);
  const tls = clientTls(flags);
  const headers = { ...credentialHeaders(connection.credentials), ...accountabilityHeaders(flags) };
  const remote = new StreamableHTTPClientTransport(endpoint, {
    requestInit: { headers },
    ...(tls ? { fetch: fetchWithTls(tls) } : {}),
  });
  const forwarder = new McpForwarder(
    new StdioServerTransport(),
    remote,
    (err) => failureOf(err, endpoint),
    (line) => process.stderr.write(`${line}\n`),
  );
  await forwarder.start();
  process.stderr.write(
    `svc mcp: forwarding stdio to ${endpoint.href}${connection.credentials ? '' : ' without a credential'}\n`,
  );
  // The MCP client ends the session by closing stdin: answer what is still on its way, then stop.
  await new Promise<void>((resolve) => process.stdin.once('end', resolve));
  await forwarder.close();
}

/**
 * --model / --prompt-id (SVC_MODEL / SVC_PROMPT_ID): the service refuses control characters and over 128 characters.
 */
function accountabilityHeaders(flags: GlobalOptions, env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  const add = (header: string, flag: string, value: string | undefined) => {
    if (value === undefined || value === '') return; // unset, as for every other command
    // eslint-disable-next-line no-control-regex
    if (value.length > 128 || /[\u0000-\u001f\u007f]/.test(value))
      throw new UsageError(`${flag} must be at most 128 characters without control characters`);
    out[header] = value;
  };
  add('X-Svc-Model', '--model', flags.model ?? env.SVC_MODEL);
  add('X-Svc-Prompt-Id', '--prompt-id', flags.promptId ?? env.SVC_PROMPT_ID);
  return out;
}

/** A failed POST, said plainly: who could not be reached, or what the service answered instead of MCP. */
export function failureOf(err: unknown, endpoint: URL): Failure {
  if (err instanceof StreamableHTTPError && typeof err.code === 'number' && err.code > 0) {
    const status = err.code;
    const body = serviceError(err.message);
    const said = body ? `${body.error}: ${body.message}` : err.message.replace(/^Streamable HTTP error: /, '');
    const hint =
      status === 401
        ? '; run svc login again, or give a valid --token / SVC_TOKEN'
        : status === 404
          ? '; is the MCP door off (mcp.enabled, SVC_MCP_ENABLED)?'
          : '';
    return {
      code: FORWARDER_ERRORS.refused,
      message: `svc mcp: ${endpoint.href} answered HTTP ${status} (${said})${hint}`,
      data: { httpStatus: status, ...(body ? { error: body.error } : {}) },
    };
  }
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  const why = cause?.code ?? cause?.message ?? (err as Error)?.message ?? String(err);
  return {
    code: FORWARDER_ERRORS.unreachable,
    message: `svc mcp: cannot reach the service at ${endpoint.href} (${why})`,
  };
}

/** The service's `{error, message}` body inside the transport's error text, when it is one. */
function serviceError(text: string): { error: string; message: string } | undefined {
  const at = text.indexOf('{');
  if (at < 0) return undefined;
  try {
    const body = JSON.parse(text.slice(at)) as { error?: unknown; message?: unknown };
    return typeof body.error === 'string' ? { error: body.error, message: String(body.message ?? '') } : undefined;
  } catch {
    return undefined;
  }
}
