import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

export interface ConfigFile {
  path?: string;
  values: Record<string, unknown>;
}

/** The config file is named by `--config PATH` or SVC_CONFIG_FILE; YAML or JSON (YAML reads both). */
export function configFilePath(argv: string[], env: NodeJS.ProcessEnv): string | undefined {
  const i = argv.indexOf('--config');
  if (i >= 0) {
    const value = argv[i + 1];
    if (!value) throw new Error('--config needs a file path');
    return value;
  }
  const eq = argv.find((a) => a.startsWith('--config='));
  if (eq) return eq.slice('--config='.length);
  return env.SVC_CONFIG_FILE || undefined;
}

export function readConfigFile(file: string | undefined): ConfigFile {
  if (!file) return { values: {} };
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(
      `config file ${file} cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
  let values: unknown;
  try {
    values = parse(text) ?? {};
  } catch (err) {
    throw new Error(`config file ${file} is not valid YAML or JSON: ${(err as Error).message.split('\n')[0]}`);
  }
  if (typeof values !== 'object' || Array.isArray(values))
    throw new Error(`config file ${file} must hold a mapping of keys`);
  return { path: path.resolve(file), values: values as Record<string, unknown> };
}
