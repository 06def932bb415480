import { readFileSync } from 'node:fs';
import { decodeJwt } from 'jose';
import { SvcClient, type ClientTls, type Credentials } from '../sdk/index.ts';
import { configPath, readLogin } from './config-file.ts';
import { UsageError } from './exit-codes.ts';

/** The global flags every command accepts (before or after the command name). */
export interface GlobalOptions {
  server?: string;
  user?: string;
  groups?: string;
  token?: string;
  json?: boolean;
  output?: string;
  timeout?: string;
  caFile?: string;
  certFile?: string;
  keyFile?: string;
  model?: string;
  promptId?: string;
}

export const DEFAULT_SERVER = 'http://127.0.0.1:8080';

export interface Connection {
  server: string;
  credentials?: Credentials;
  /** The caller's subject as far as the CLI can tell: the dev user, or the token's (unverified) sub. */
  user?: string;
}

/** Flags first, then SVC_SERVER / SVC_USER / SVC_TOKEN, then the login file, then the local default. */
export function resolveConnection(flags: GlobalOptions, env: NodeJS.ProcessEnv = process.env): Connection {
  const saved = readLogin(configPath(env));
  const server = flags.server ?? env.SVC_SERVER ?? saved?.server ?? DEFAULT_SERVER;
  try {
    new URL(server);
  } catch {
    throw new UsageError(`--server "${server}" is not a URL (for example http://127.0.0.1:8080)`);
  }
  const token = flags.token ?? env.SVC_TOKEN;
  const user = flags.user ?? env.SVC_USER;
  const groups = flags.groups
    ?.split(',')
    .map((g) => g.trim())
    .filter(Boolean);
  if (token !== undefined && user !== undefined)
    throw new UsageError('give either --token (SVC_TOKEN) or --user (SVC_USER), not both');
  if (token !== undefined) return { server, credentials: { token }, user: subjectOf(token) };
  if (user !== undefined) return { server, credentials: { user, groups }, user };
  // Nothing on the command line or in the environment: who the login file says.
  if (saved?.token) return { server, credentials: { token: saved.token }, user: subjectOf(saved.token) };
  if (saved?.user)
    return { server, credentials: { user: saved.user, groups: groups ?? saved.groups }, user: saved.user };
  return { server };
}

export function clientFor(
  connection: Connection,
  flags: GlobalOptions,
  env: NodeJS.ProcessEnv = process.env,
): SvcClient {
  const timeoutMs = flags.timeout === undefined ? undefined : Number(flags.timeout) * 1000;
  if (timeoutMs !== undefined && !(timeoutMs > 0))
    throw new UsageError(`--timeout must be a number of seconds above 0, not "${flags.timeout}"`);
  // The model and prompt every call of this run acts for: sent as X-Svc-Model / X-Svc-Prompt-Id, audited with each
  // call.
  const model = flags.model ?? env.SVC_MODEL ?? undefined;
  const promptId = flags.promptId ?? env.SVC_PROMPT_ID ?? undefined;
  return new SvcClient({
    server: connection.server,
    credentials: connection.credentials,
    timeoutMs,
    tls: clientTls(flags),
    model: model || undefined,
    promptId: promptId || undefined,
  });
}

/** --ca-file / --cert-file / --key-file (or SVC_CA_FILE, SVC_CLIENT_CERT_FILE, SVC_CLIENT_KEY_FILE), read now. */
export function clientTls(flags: GlobalOptions, env: NodeJS.ProcessEnv = process.env): ClientTls | undefined {
  const files = {
    ca: flags.caFile ?? env.SVC_CA_FILE,
    cert: flags.certFile ?? env.SVC_CLIENT_CERT_FILE,
    key: flags.keyFile ?? env.SVC_CLIENT_KEY_FILE,
  };
  if (!files.ca && !files.cert && !files.key) return undefined;
  if (Boolean(files.cert) !== Boolean(files.key))
    throw new UsageError('--cert-file and --key-file go together (SVC_CLIENT_CERT_FILE, SVC_CLIENT_KEY_FILE)');
  const read = (flag: string, file: string | undefined) => {
    if (!file) return undefined;
    try {
      return readFileSync(file);
    } catch (err) {
      throw new UsageError(`${flag} ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  };
  return { ca: read('--ca-file', files.ca), cert: read('--cert-file', files.cert), key: read('--key-file', files.key) };
}

/**
 * The token's sub claim, read without verifying it: only to filter the caller's own records; the service decides who
 * the caller is.
 */
function subjectOf(token: string): string | undefined {
  try {
    return decodeJwt(token).sub;
  } catch {
    return undefined;
  }
}
