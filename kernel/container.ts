import { asFunction, asValue, createContainer, InjectionMode, type AwilixContainer } from 'awilix';
import { dependencyRefs, type AnyPlugin } from './define-plugin.ts';
import type { Clock } from './ports/clock.ts';
import { withPreviousKeks } from './crypto/root-of-trust-chain.ts';
import type { Logger } from './ports/logger.ts';
import { previousKeksPort, type RootOfTrust, rootOfTrustPort } from './ports/root-of-trust.ts';
import { configuredInstances } from './settings/configure.ts';
import type { Deployment } from './settings/deployment.ts';

export interface Wired {
  plugin: AnyPlugin;
  /** The plugin id, or `<id>:<name>` for one of a plugin's several instances. */
  name: string;
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
  deployment: Deployment,
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

  // Every instance's registration name, per plugin: the id, or one `<id>:<name>` per configured instance.
  const names = new Map<AnyPlugin, string[]>();
  for (const plugin of plugins) {
    const slices = configuredInstances(plugin, config, deployment);
    names.set(
      plugin,
      slices.map((s) => s.name),
    );
    for (const { name, config: slice } of slices) {
      container.register(
        name,
        asFunction((cradle: Record<string, unknown>) => {
          const deps: Record<string, unknown> = {};
          for (const [dep, ref] of dependencyRefs(plugin)) deps[dep] = cradle[ref.id];
          return plugin.create({ config: Object.freeze(slice), deps, logger, clock });
        }).singleton(),
      );
    }
  }
  for (const [port, list] of byPort) {
    if (multiplePorts.has(port)) continue;
    container.register(port, asFunction((cradle: Record<string, unknown>) => cradle[list[0]!.id]).singleton());
  }
  // The root of trust every plugin sees is the chosen one with the previous KEKs of other kinds behind it.
  const previousKeks = (byPort.get(previousKeksPort.id) ?? []).flatMap((p) => names.get(p)!);
  const chosenRoot = byPort.get(rootOfTrustPort.id)?.[0];
  if (chosenRoot && previousKeks.length > 0) {
    container.register(
      rootOfTrustPort.id,
      asFunction((cradle: Record<string, unknown>) =>
        withPreviousKeks(
          cradle[chosenRoot.id] as RootOfTrust,
          previousKeks.map((name) => cradle[name] as RootOfTrust),
        ),
      ).singleton(),
    );
  }
  for (const port of multiplePorts) {
    const list = (byPort.get(port) ?? []).flatMap((p) => names.get(p)!);
    container.register(
      port,
      asFunction((cradle: Record<string, unknown>) => list.map((name) => cradle[name])).singleton(),
    );
  }

  const wired = plugins.flatMap((plugin) =>
    names.get(plugin)!.map((name) => ({ plugin, name, instance: container.resolve(name) })),
  );
  return { container, wired };
}
