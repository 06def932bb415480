import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Authenticator } from 'nats';

// nats is loaded when a credentials file is checked or used, not with the module: only a deployment with
// a message-stream sink pays for it.
const credsAuthenticator: typeof import('nats')['credsAuthenticator'] = (creds) =>
  (createRequire(import.meta.url)('nats') as typeof import('nats')).credsAuthenticator(creds);

/**
 * The NATS authenticator for a credentials file (user JWT and NKey seed, as `nsc` writes it). The file is
 * read again on every connect and reconnect, so credentials an operator rotates on disk take effect at the
 * next reconnect without a restart.
 */
export function credentialsAuthenticator(file: string): Authenticator {
  return credsAuthenticator(() => readFileSync(file));
}

/**
 * Fails the boot on a credentials file that cannot be read or holds no usable user JWT and seed, naming the
 * file and never its contents. Signing a nonce with it is the same check the client makes when it connects.
 */
export function checkCredentialsFile(file: string): void {
  let contents: Buffer;
  try {
    contents = readFileSync(file);
  } catch (err) {
    throw new Error(`credentials file ${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    credsAuthenticator(contents)('svc-kms-boot-check');
  } catch {
    throw new Error(`credentials file ${file} holds no NATS user JWT and NKey seed`);
  }
}

/** Says why a connection failed in words an operator can act on; the credentials themselves never appear. */
export function connectFailure(err: unknown, servers: string[], file: string): string {
  const code = (err as { code?: string }).code;
  const message = (err as Error).message ?? String(err);
  const where = `message-stream servers ${servers.join(',')}`;
  if (code === 'AUTHORIZATION_VIOLATION' || code === 'AUTHENTICATION_EXPIRED' || code === 'AUTHENTICATION_TIMEOUT') {
    return `${where} refused ${file ? `the credentials in ${file}` : 'a connection without credentials'}: ${message}`;
  }
  if (code === 'BAD_CREDS') return `credentials file ${file} holds no NATS user JWT and NKey seed`;
  if (code === 'ENOENT' || code === 'EACCES') return `credentials file ${file} cannot be read (${code})`;
  return `${where} unreachable: ${message}`;
}
