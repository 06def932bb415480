import { Type, type TObject, type TString } from '@sinclair/typebox';
import type { AnyPlugin } from '../define-plugin.ts';
import type { PortRef } from '../ports/port-ref.ts';
import { settingLeaves, settingVariable } from './settings.ts';

/**
 * A setting that chooses which plugin fills a port, by the plugins' `kind`: its allowed values are the
 * kinds of the plugins that provide the port (listed nowhere else), and the kernel wires the one named.
 */
export function kindSetting(port: PortRef<unknown>, description: string, defaultKind: string): TString {
  return Type.String({ description, default: defaultKind, selects: port.id });
}

/** The port a setting chooses a provider for, when it is a kindSetting. */
export const selectedPort = (setting: unknown): string | undefined => (setting as { selects?: string }).selects;

/** The kinds of the plugins that provide `port`, in the order given. */
export const kindsOf = (plugins: AnyPlugin[], port: string): string[] =>
  plugins.flatMap((p) => (p.provides.id === port && p.kind !== undefined ? [p.kind] : []));

const kindAt = (path: string, values: Record<string, unknown>): string =>
  String(path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown>)?.[key], values));
const sectionOf = (path: string): string => path.split('.').slice(0, -1).join('.');

/** The kind each kind setting of `settings` names, by the setting's section: `{journal: 'rdb-embedded', ...}`. */
export function chosenKinds(settings: TObject, values: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    settingLeaves(settings).flatMap(([path, setting]) =>
      selectedPort(setting) ? [[sectionOf(path), kindAt(path, values)]] : [],
    ),
  );
}

export interface Choice {
  /** The plugin each kind setting names, one per chosen port. */
  chosen: AnyPlugin[];
  /** One sentence per setting that names a kind no plugin has. */
  problems: string[];
}

/**
 * The plugins the kind settings of `settings` choose among `plugins`, from the validated configuration,
 * in the order of the list (the catalogue's: journal first), which the boot tree shows.
 */
export function chooseByKind(settings: TObject, values: Record<string, unknown>, plugins: AnyPlugin[]): Choice {
  const choice: Choice = { chosen: [], problems: [] };
  const kindSettings = settingLeaves(settings).flatMap(([path, setting]) => {
    const port = selectedPort(setting);
    return port ? [{ path, setting, port }] : [];
  });
  const listed = (port: string) => {
    const at = plugins.findIndex((p) => p.provides.id === port);
    return at < 0 ? plugins.length : at;
  };
  kindSettings.sort((a, b) => listed(a.port) - listed(b.port));
  for (const { path, setting, port } of kindSettings) {
    const kind = kindAt(path, values);
    const plugin = plugins.find((p) => p.provides.id === port && p.kind === kind);
    if (plugin) choice.chosen.push(plugin);
    else
      choice.problems.push(
        `${path} (env ${settingVariable(path, setting)}) is "${kind}", which this build has no plugin for; available: ${kindsOf(plugins, port).join(', ')}`,
      );
  }
  return choice;
}
