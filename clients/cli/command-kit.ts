import { InvalidArgumentError, type Command } from 'commander';
import type { SvcClient } from '../sdk/index.ts';
import { clientFor, resolveConnection, type Connection, type GlobalOptions } from './connection.ts';

/** What a command's action needs from the command line: the global flags, a client, the connection. */
export interface Invocation {
  globals: GlobalOptions;
  client: SvcClient;
  connection: Connection;
}

export function invocation(cmd: Command): Invocation {
  const globals = cmd.optsWithGlobals<GlobalOptions>();
  const connection = resolveConnection(globals);
  return { globals, client: clientFor(connection, globals), connection };
}

/** Every command's help ends with examples a newcomer can copy. */
export function examples(cmd: Command, ...lines: string[]): Command {
  return cmd.addHelpText(
    'after',
    `\nExample${lines.length > 1 ? 's' : ''}:\n${lines.map((l) => `  $ ${l}`).join('\n')}`,
  );
}

/** Parses a positive whole number flag, or fails as a usage error naming the flag. */
export function positiveInt(flag: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`${flag} must be a whole number of 1 or more.`);
    return n;
  };
}

/** Parses a whole number flag of 0 or more, or fails as a usage error naming the flag. */
export function wholeNumber(flag: string) {
  return (value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isInteger(n) || n < 0)
      throw new InvalidArgumentError(`${flag} must be a whole number of 0 or more.`);
    return n;
  };
}

/** `--context k=v`, repeatable, into the encryption context. */
export function contextPair(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const at = value.indexOf('=');
  if (at < 1) throw new InvalidArgumentError('--context takes key=value.');
  return { ...previous, [value.slice(0, at)]: value.slice(at + 1) };
}

/** A repeatable flag collected into a list (also accepts comma-separated values). */
export function list(value: string, previous: string[] = []): string[] {
  return [
    ...previous,
    ...value
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean),
  ];
}

/** `--tag k=v` (repeatable) into a map, as `--context` does; the last value of a key given twice wins. */
export function pairs(flag: string) {
  return (value: string, previous: Record<string, string> = {}): Record<string, string> => {
    const at = value.indexOf('=');
    if (at < 1) throw new InvalidArgumentError(`${flag} takes key=value.`);
    return { ...previous, [value.slice(0, at)]: value.slice(at + 1) };
  };
}

/** A repeatable flag whose values may hold commas (tag values, key name globs): never split. */
export function repeatable(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}
