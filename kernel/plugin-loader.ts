import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { isValidPluginId, KERNEL_API_VERSION, type AnyPlugin } from './define-plugin.ts';

/**
 * The built server (dist/server, plain node) has no TypeScript loader; from source (tsx) a plugin may be TypeScript.
 */
const RUNNING_BUILT_JAVASCRIPT = !import.meta.url.endsWith('.ts');

export interface ThirdPartyPlugin {
  source: string;
  manifest: AnyPlugin;
}

/**
 * Loads the third-party plugins named under `plugins:` in the config file (package names, or paths
 * relative to the file) and checks each export's shape and kernel API version. Every failure is a
 * sentence naming the plugin as the operator wrote it.
 */
export async function loadThirdPartyPlugins(
  specifiers: unknown,
  baseDir: string,
  knownPorts: ReadonlySet<string>,
): Promise<ThirdPartyPlugin[]> {
  if (specifiers === undefined) return [];
  if (!Array.isArray(specifiers) || specifiers.some((s) => typeof s !== 'string' || s === '')) {
    throw new Error('plugins: must be a list of package names or paths');
  }
  const loaded: ThirdPartyPlugin[] = [];
  for (const source of specifiers as string[]) {
    const target =
      source.startsWith('.') || path.isAbsolute(source) ? pathToFileURL(path.resolve(baseDir, source)).href : source;
    if (RUNNING_BUILT_JAVASCRIPT && /\.[cm]?tsx?$/.test(source)) {
      throw new Error(
        `plugin "${source}" is TypeScript, and this is the built server (npm start), which loads JavaScript: compile the plugin to .js, or run the server from source with npm run dev`,
      );
    }
    let mod: Record<string, unknown>;
    try {
      mod = await import(target);
    } catch (err) {
      throw new Error(`plugin "${source}" could not be loaded: ${(err as Error).message.split('\n')[0]}`);
    }
    loaded.push({ source, manifest: checkManifest(source, mod.default, knownPorts) });
  }
  return loaded;
}

function checkManifest(source: string, value: unknown, knownPorts: ReadonlySet<string>): AnyPlugin {
  const m = value as Partial<AnyPlugin> | undefined;
  const problem = (what: string) => new Error(`plugin "${source}" is malformed: ${what}`);
  if (!m || typeof m !== 'object')
    throw problem('its module must export a plugin manifest as default (definePlugin({...}))');
  if (typeof m.id !== 'string' || !isValidPluginId(m.id)) throw problem('id must be a kebab-case string');
  if (m.apiVersion !== KERNEL_API_VERSION)
    throw problem(`it was built for kernel API ${String(m.apiVersion)}, this kernel speaks ${KERNEL_API_VERSION}`);
  if (!m.provides || typeof m.provides.id !== 'string') throw problem('provides must be a port ref from the kernel');
  if (!knownPorts.has(m.provides.id))
    throw problem(
      `it provides "${m.provides.id}", which is not a port third parties may provide (${[...knownPorts].join(', ')})`,
    );
  if (typeof m.create !== 'function') throw problem('create must be a function');
  if (typeof m.description !== 'string') throw problem('description must be a string');
  return m as AnyPlugin;
}
