import convict from 'convict';
import type { ConfigFragment } from './stitch.ts';
import type { ConfigFile } from './file.ts';
import { schemaLeaves } from './stitch.ts';
import { redactUrl } from '../kernel/index.ts';

const SECRET_KEY = /secret|password|apikey|token/i;

export interface LoadedConfig {
  values: Record<string, unknown>;
  /** The effective configuration with every sensitive value replaced, as JSON text. */
  redacted(): string;
}

/**
 * Validates file + environment against the stitched schema. Environment variables override the file.
 * Every bad value and unknown key is reported at once, each naming the key and its env variable.
 */
export function loadConfig(schema: ConfigFragment, file: ConfigFile, env: NodeJS.ProcessEnv): LoadedConfig {
  const envNames = new Map(schemaLeaves(schema).flatMap(([key, leaf]) => (leaf.env ? [[key, String(leaf.env)]] : [])));
  let conf: convict.Config<Record<string, unknown>>;
  try {
    conf = convict(schema as convict.Schema<Record<string, unknown>>, { env, args: [] });
    conf.load(file.values);
    conf.validate({ allowed: 'strict' });
  } catch (err) {
    const lines = (err as Error).message
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const key = line.split(':')[0]!.trim();
        const envName = envNames.get(key);
        // convict quotes the refused value of a setting not marked sensitive; a URL may hold a password.
        return `  - ${redactUrl(line)}${envName ? ` (env ${envName})` : ''}`;
      });
    const where = file.path ? ` (file ${file.path} and environment)` : ' (environment)';
    throw new Error(`configuration is invalid${where}:\n${lines.join('\n')}`);
  }
  return {
    values: conf.getProperties(),
    // convict hides the values marked sensitive; passwords written inside URLs are hidden here too, and
    // secrets inside lists (audit.sinks entries), which convict cannot mark, by their key.
    redacted: () =>
      JSON.stringify(
        JSON.parse(conf.toString()),
        (key, value: unknown) =>
          typeof value !== 'string' ? value : SECRET_KEY.test(key) && value !== '' ? '[Sensitive]' : redactUrl(value),
        2,
      ),
  };
}
