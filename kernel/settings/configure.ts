import type { AnyPlugin } from '../define-plugin.ts';
import type { Deployment } from './deployment.ts';
import { pickSettings } from './settings.ts';

/** One instance of a plugin and what its `create` receives. */
export interface ConfiguredInstance {
  /** The plugin id, or `<id>:<name>` for one of a plugin's several instances. */
  name: string;
  config: unknown;
}

/**
 * A plugin's instances with their configuration: each made by the plugin from its own settings alone
 * (picked out of the validated configuration) and the deployment's facts.
 */
export function configuredInstances(
  plugin: AnyPlugin,
  all: Record<string, unknown>,
  deployment: Deployment,
): ConfiguredInstance[] {
  const settings = plugin.settings ? pickSettings(plugin.settings, all) : Object.freeze({});
  if (plugin.instances && plugin.provides.multiple) {
    return plugin.instances(settings, deployment).map((i) => ({ name: `${plugin.id}:${i.name}`, config: i.config }));
  }
  return [{ name: plugin.id, config: plugin.configure ? plugin.configure(settings, deployment) : settings }];
}
