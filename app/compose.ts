import type { AnyPlugin } from '../kernel/define-plugin.ts';
import type { ThirdPartyPlugin } from '../kernel/plugin-loader.ts';
import { ALWAYS, SELECTABLE } from './catalogue.ts';

const read = (config: Record<string, unknown>, dotted: string): unknown =>
  dotted.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], config);

/** Picks the plugins this configuration wires: one per selectable port by kind, the features, and third parties. */
export function selectPlugins(config: Record<string, unknown>, thirdParty: ThirdPartyPlugin[]): AnyPlugin[] {
  const problems: string[] = [];
  const chosen: AnyPlugin[] = [];
  for (const s of SELECTABLE) {
    const kind = String(read(config, s.configKey));
    const plugin = s.plugins.find((p) => p.kind === kind);
    if (plugin) chosen.push(plugin);
    else problems.push(`${s.configKey} (env ${s.env}) is "${kind}", which this build has no plugin for; available: ${s.plugins.map((p) => p.kind).join(', ')}`);
  }
  if (problems.length) throw new Error(`configuration picks plugins that are not available:\n  - ${problems.join('\n  - ')}`);
  return [...chosen, ...ALWAYS, ...thirdParty.map((t) => t.manifest)];
}
