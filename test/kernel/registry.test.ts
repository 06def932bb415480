import t from 'tap';
import { definePlugin, KERNEL_API_VERSION, type AnyPlugin } from '../../kernel/define-plugin.ts';
import { createPortRef, type PortRef } from '../../kernel/ports/port-ref.ts';
import { PluginRegistry } from '../../kernel/registry.ts';

const single = createPortRef<object>('single');
const other = createPortRef<object>('other');
const many = createPortRef<object>('many', { multiple: true });
const plugin = (
  id: string,
  provides: PortRef<object> = single,
  dependsOn: Record<string, PortRef<object>> = {},
): AnyPlugin =>
  definePlugin({ id, apiVersion: KERNEL_API_VERSION, provides, dependsOn, description: id, create: () => ({}) });

t.test('orders providers before their dependants', async (t) => {
  const ordered = new PluginRegistry()
    .add(plugin('feature', many, { s: single, o: other }))
    .add(plugin('b', other, { s: single }))
    .add(plugin('a'))
    .resolve(new Set());
  t.same(
    ordered.map((p) => p.id),
    ['a', 'b', 'feature'],
  );
});

t.test('several providers of a multiple port are fine', async (t) => {
  t.equal(new PluginRegistry().add(plugin('x', many)).add(plugin('y', many)).resolve(new Set()).length, 2);
});

t.test('reports every problem at once, each naming plugin and port', async (t) => {
  const registry = new PluginRegistry()
    .add(plugin('one'))
    .add(plugin('two'))
    .add(plugin('Bad_Id', many))
    .add(plugin('needs', many, { missing: createPortRef('nowhere') }))
    .add({ ...plugin('old', many), apiVersion: 0 });
  const err = t.throws(() => registry.resolve(new Set())) as Error;
  t.match(err.message, /4 problem\(s\)/);
  t.match(err.message, /port "single" takes one provider but has 2: "one", "two"/);
  t.match(err.message, /plugin id "Bad_Id" is not kebab-case/);
  t.match(err.message, /plugin "needs" depends on port "nowhere" \(as missing\), which no plugin provides/);
  t.match(err.message, /plugin "old" was built for kernel API 0/);
});

t.test('detects dependency cycles', async (t) => {
  const a = createPortRef<object>('port-a');
  const b = createPortRef<object>('port-b');
  const err = t.throws(() =>
    new PluginRegistry()
      .add(plugin('pa', a, { b }))
      .add(plugin('pb', b, { a }))
      .resolve(new Set()),
  ) as Error;
  t.match(err.message, /dependency cycle: pa \(port-a\) -> pb \(port-b\) -> pa \(port-a\)/);
});

t.test('a plugin may not provide a port the kernel provides', async (t) => {
  t.throws(
    () => new PluginRegistry().add(plugin('fake-logger', createPortRef('logger'))).resolve(new Set(['logger'])),
    /which the kernel provides itself/,
  );
});
