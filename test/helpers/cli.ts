import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

/** The built `svc` binary (npm run build:cli; npm test builds it first). */
export const SVC_BIN = path.resolve(import.meta.dirname, '../../dist/svc.mjs');

export interface CliResult {
  code: number | null;
  stdout: Buffer;
  stderr: string;
  /** stdout as text, for the readable outputs. */
  out: string;
}

/** An environment without the caller's SVC_* variables, and with its own config folder. */
export function cliEnv(configHome: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: configHome, XDG_CONFIG_HOME: configHome };
  return { ...env, ...extra };
}

/**
 * A runner of `svc ... --json` in `env` that gives the parsed answer, and throws with stderr when it exits non-zero.
 */
export function svcJson(env: NodeJS.ProcessEnv): (args: string[], input?: Buffer | string) => Promise<any> {
  return async (args, input) => {
    const r = await svc([...args, '--json'], env, input);
    if (r.code !== 0) throw new Error(`svc ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
    return JSON.parse(r.out);
  };
}

/** Runs the binary as a subprocess (asynchronously: the service under test lives in this process). */
export function svc(args: string[], env: NodeJS.ProcessEnv, input?: Buffer | string): Promise<CliResult> {
  if (!existsSync(SVC_BIN)) throw new Error(`${SVC_BIN} is missing; run npm run build:cli`);
  return new Promise((resolve, reject) => {
    const child = spawn(SVC_BIN, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const stdout = Buffer.concat(out);
      resolve({ code, stdout, stderr, out: stdout.toString('utf8') });
    });
    child.stdin.end(input);
  });
}

/** Starts a long-running command (audit tail --follow) and resolves once its stdout matches. */
export function svcUntil(
  args: string[],
  env: NodeJS.ProcessEnv,
  pattern: RegExp,
): { child: ChildProcess; matched: Promise<string> } {
  const child = spawn(SVC_BIN, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  let stderr = '';
  const matched = new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      text += d;
      if (pattern.test(text)) resolve(text);
    });
    child.stderr!.on('data', (d: Buffer) => (stderr += d));
    child.on('close', (code) =>
      reject(new Error(`svc ${args.join(' ')} exited ${code} before printing ${pattern}: ${stderr}`)),
    );
  });
  return { child, matched };
}
