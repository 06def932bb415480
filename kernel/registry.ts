import { dependencyRefs, isValidPluginId, KERNEL_API_VERSION, type AnyPlugin } from './define-plugin.ts';

/**
 * Collects the manifests chosen for this boot and checks them as a graph: duplicate ids, a second
 * provider for a single port, dependencies nobody provides, cycles. Every problem is reported in one
 * error, each naming the plugin and the port, so an operator fixes them in one pass.
 */
export class PluginRegistry {
  private readonly plugins: AnyPlugin[] = [];

  add(plugin: AnyPlugin): this {
    this.plugins.push(plugin);
    return this;
  }

  /** The plugins in dependency order (providers before their dependants). Throws on any problem. */
  resolve(kernelPorts: ReadonlySet<string>): AnyPlugin[] {
    const problems: string[] = [];
    const providers = new Map<string, AnyPlugin[]>();
    const ids = new Set<string>();
    for (const p of this.plugins) {
      if (!isValidPluginId(p.id)) problems.push(`plugin id "${p.id}" is not kebab-case`);
      if (ids.has(p.id)) problems.push(`plugin "${p.id}" is registered twice`);
      if (p.apiVersion !== KERNEL_API_VERSION) {
        problems.push(
          `plugin "${p.id}" was built for kernel API ${p.apiVersion}; this kernel speaks ${KERNEL_API_VERSION}`,
        );
      }
      ids.add(p.id);
      const list = providers.get(p.provides.id) ?? [];
      list.push(p);
      providers.set(p.provides.id, list);
    }
    for (const [port, list] of providers) {
      if (kernelPorts.has(port))
        problems.push(`plugin "${list[0]!.id}" provides port "${port}", which the kernel provides itself`);
      if (list.length > 1 && !list[0]!.provides.multiple) {
        problems.push(
          `port "${port}" takes one provider but has ${list.length}: ${list.map((p) => `"${p.id}"`).join(', ')}`,
        );
      }
    }
    for (const p of this.plugins) {
      for (const [name, ref] of dependencyRefs(p)) {
        if (!providers.has(ref.id) && !kernelPorts.has(ref.id) && !ref.multiple) {
          problems.push(`plugin "${p.id}" depends on port "${ref.id}" (as ${name}), which no plugin provides`);
        }
      }
    }
    const ordered = problems.length ? [] : this.order(providers, problems);
    if (problems.length) {
      throw new Error(`plugin registry: ${problems.length} problem(s):\n  - ${problems.join('\n  - ')}`);
    }
    return ordered;
  }

  private order(providers: Map<string, AnyPlugin[]>, problems: string[]): AnyPlugin[] {
    const done = new Set<AnyPlugin>();
    const visiting: AnyPlugin[] = [];
    const out: AnyPlugin[] = [];
    const visit = (p: AnyPlugin): void => {
      if (done.has(p)) return;
      if (visiting.includes(p)) {
        const cycle = [...visiting.slice(visiting.indexOf(p)), p].map((x) => `${x.id} (${x.provides.id})`);
        problems.push(`dependency cycle: ${cycle.join(' -> ')}`);
        return;
      }
      visiting.push(p);
      for (const ref of dependencyRefs(p).map(([, ref]) => ref))
        for (const dep of providers.get(ref.id) ?? []) visit(dep);
      visiting.pop();
      done.add(p);
      out.push(p);
    };
    for (const p of this.plugins) visit(p);
    return out;
  }
}
