import t from 'tap';
import { definePlugin, KERNEL_API_VERSION } from '../../kernel/define-plugin.ts';
import { PluginLifecycle } from '../../kernel/lifecycle.ts';
import { createStderrLogger } from '../../kernel/logger.ts';
import { createPortRef } from '../../kernel/ports/port-ref.ts';

const quiet = createStderrLogger('error', () => {});
const manifest = (id: string) =>
  definePlugin({
    id,
    apiVersion: KERNEL_API_VERSION,
    provides: createPortRef(id),
    description: id,
    create: () => ({}),
  });

function recorder(events: string[], id: string, opts: { failStart?: boolean; hangStart?: boolean } = {}) {
  return {
    plugin: manifest(id),
    name: id,
    instance: {
      start: async () => {
        if (opts.hangStart) await new Promise(() => {});
        if (opts.failStart) throw new Error('boom');
        events.push(`start ${id}`);
      },
      stop: async () => void events.push(`stop ${id}`),
    },
  };
}

t.test('starts in order, stops in reverse, and a second stop does nothing', async (t) => {
  const events: string[] = [];
  const lc = new PluginLifecycle([recorder(events, 'a'), recorder(events, 'b'), recorder(events, 'c')], quiet);
  await lc.start();
  await Promise.all([lc.stop(), lc.stop()]);
  await lc.stop();
  t.same(events, ['start a', 'start b', 'start c', 'stop c', 'stop b', 'stop a']);
});

t.test('a failed start stops what already started and names the plugin', async (t) => {
  const events: string[] = [];
  const lc = new PluginLifecycle(
    [recorder(events, 'a'), recorder(events, 'b', { failStart: true }), recorder(events, 'c')],
    quiet,
  );
  await t.rejects(lc.start(), /plugin "b" \(b\) failed to start: boom/);
  t.same(events, ['start a', 'stop a']);
});

t.test('a start that hangs fails after its time limit', async (t) => {
  const events: string[] = [];
  const lc = new PluginLifecycle([recorder(events, 'slow', { hangStart: true })], quiet, { startMs: 50, stopMs: 50 });
  await t.rejects(lc.start(), /plugin "slow" start did not finish within 50 ms/);
});
