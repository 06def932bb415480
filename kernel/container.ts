import { asFunction, asValue, createContainer, InjectionMode, type AwilixContainer } from 'awilix';
import { dependencyRefs, type AnyPlugin } from './define-plugin.ts';
import type { Clock } from './ports/clock.ts';
import type { Logger } from './ports/logger.ts';

export interface Wired {
  plugin: AnyPlugin;
  instance: unknown;
}

/**
 * Builds the awilix container (strict mode: no lifetime leaks, no resolution of unregistered names).
 * Each plugin is registered under its id; each port under its port id, resolving to the single
 * provider or, for multiple ports, to the list. A plugin's `create` sees only the ports it declared.
 */
export function buildContainer(
  plugins: AnyPlugin[],
  kernelServices: Record<string, unknown>,
  config: Record<string, unknown>,
  logger: Logger,
  clock: Clock,
): { container: AwilixContainer; wired: Wired[] } {
  const container = createContainer({ injectionMode: InjectionMode.PROXY, strict: true });
  for (const [name, value] of Object.entries(kernelServices)) container.register(name, asValue(value));

  const byPort = new Map<string, AnyPlugin[]>();
  for (const p of plugins) byPort.set(p.provides.id, [...(byPort.get(p.provides.id) ?? []), p]);
  const multiplePorts = new Set<string>();
  for (const p of plugins) {
    if (p.provides.multiple) multiplePorts.add(p.provides.id);
    for (const ref of dependencyRefs(p).map(([, ref]) => ref)) if (ref.multiple) multiplePorts.add(ref.id);
  }

  for (const plugin of plugins) {
    container.register(
      plugin.id,
      asFunction((cradle: Record<string, unknown>) => {
        const deps: Record<string, unknown> = {};
        for (const [name, ref] of dependencyRefs(plugin)) deps[name] = cradle[ref.id];
        const slice = plugin.configSlice ? plugin.configSlice(config) : config;
        return plugin.create({ config: Object.freeze(slice), deps, logger, clock });
      }).singleton(),
    );
  }
  for (const [port, list] of byPort) {
    if (multiplePorts.has(port)) continue;
    container.register(port, asFunction((cradle: Record<string, unknown>) => cradle[list[0]!.id]).singleton());
  }
  for (const port of multiplePorts) {
    const list = byPort.get(port) ?? [];
    container.register(port, asFunction((cradle: Record<string, unknown>) => list.map((p) => cradle[p.id])).singleton());
  }

  const wired = plugins.map((plugin) => ({ plugin, instance: container.resolve(plugin.id) }));
  return { container, wired };
}
