import { Kind, type TObject, type TSchema } from '@sinclair/typebox';
import { selectedPort } from '../kernel/settings/choose-by-kind.ts';
import { isSection, settingVariable } from '../kernel/settings/settings.ts';
import type { ConfigFragment } from './stitch.ts';
import { httpsUrl } from './urls.ts';
import { wholeNumberOrAuto } from './workers.ts';

/** The loader's checks of the formats a setting may name (defineSettings in kernel/settings/settings.ts). */
const FORMATS: Record<string, (value: unknown) => void> = {
  'outbound-url': httpsUrl,
  'whole-number-or-auto': wholeNumberOrAuto,
};

/** The kinds of the plugins that provide a port, for the settings that choose one (kindSetting). */
export type KindsOf = (port: string) => string[];

/** The loader's format of one setting: its type, an enum's values, the kinds it chooses among, or a named check. */
function formatOf(path: string, setting: TSchema, kindsOf: KindsOf): unknown {
  const port = selectedPort(setting);
  if (port) return kindsOf(port);
  const named = setting.format as string | undefined;
  if (named) {
    const check = FORMATS[named];
    if (!check)
      throw new Error(
        `setting ${path} names the format "${named}", which is none of ${Object.keys(FORMATS).join(', ')}`,
      );
    return check;
  }
  switch (setting[Kind]) {
    case 'String':
      return String;
    case 'Boolean':
      return Boolean;
    case 'Number':
      return Number;
    case 'Integer':
      if (setting.minimum === 0 && setting.maximum === 65535) return 'port';
      return setting.minimum === 0 ? 'nat' : 'int';
    case 'Array':
      return Array;
    case 'Object':
    case 'Record':
      return Object;
    case 'Union':
      if ((setting.anyOf as TSchema[]).every((s) => s[Kind] === 'Literal'))
        return (setting.anyOf as TSchema[]).map((s) => s.const);
  }
  throw new Error(`setting ${path} has a type the configuration loader cannot read (${String(setting[Kind])})`);
}

// One leaf object per setting schema: two plugins declaring the very same setting (a shared SQL
// connection) then stitch into one setting instead of clashing.
const leaves = new WeakMap<TSchema, Record<string, unknown>>();

/**
 * One plugin's settings declaration (a TypeBox object, kernel/settings/settings.ts) as the loader's
 * schema fragment: its keys, variables, defaults, formats and sensitivity, from that one declaration.
 */
export function settingsFragment(settings: TObject, kindsOf: KindsOf = () => [], prefix = ''): ConfigFragment {
  return Object.fromEntries(
    Object.entries(settings.properties).map(([key, schema]) => {
      const path = prefix ? `${prefix}.${key}` : key;
      if (isSection(schema)) return [key, settingsFragment(schema, kindsOf, path)];
      const known = leaves.get(schema);
      if (known) return [key, known];
      if (schema.description === undefined || !('default' in schema))
        throw new Error(`setting ${path} needs a description and a default`);
      const env = settingVariable(path, schema);
      const leaf = {
        doc: schema.description,
        format: formatOf(path, schema, kindsOf),
        default: schema.default,
        ...(env ? { env } : {}),
        ...(schema.sensitive ? { sensitive: true } : {}),
      };
      // A kind setting's values depend on the plugins at hand; it is the base's alone, never shared.
      if (!selectedPort(schema)) leaves.set(schema, leaf);
      return [key, leaf];
    }),
  );
}
