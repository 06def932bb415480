import type { AnyPlugin } from '../kernel/define-plugin.ts';
import { kindsOf } from '../kernel/settings/choose-by-kind.ts';
import { baseSchema } from './schema.ts';
import { settingsFragment } from './settings-fragment.ts';
import { type ConfigFragment, stitchSchema } from './stitch.ts';

/**
 * The loader's schema of a deployment: the base settings and every given plugin's declared settings,
 * each setting owned by the plugin that declared it (two different declarations of one key fail, naming both).
 */
export function wholeSchema(plugins: AnyPlugin[]): ConfigFragment {
  const fragments = plugins.flatMap((p) =>
    p.settings ? [{ owner: p.id, fragment: settingsFragment(p.settings) }] : [],
  );
  // The kind settings allow the kinds of the plugins at hand: listed by the plugins alone.
  return stitchSchema(
    settingsFragment(baseSchema, (port) => kindsOf(plugins, port)),
    fragments,
  );
}
