import { Counter, Histogram, Registry } from 'prom-client';
import t from 'tap';
import { LabelledCounter, LabelledHistogram } from '../../kernel/observability/labelled-metrics.ts';

const BUCKETS = [0.001, 0.01, 0.1, 1];
const OBSERVED: Array<[string, string, number]> = [
  ['Sign', 'success', 0.0004],
  ['Sign', 'success', 0.001],
  ['Sign', 'success', 0.5],
  ['Sign', 'success', 7],
  ['Encrypt', 'error', 0.02],
  ['Encrypt', 'success', 0.01],
  ['Sign', 'success', 0.0999],
];

t.test(
  "a labelled histogram exposes exactly what prom-client's own histogram does for the same observations",
  async (t) => {
    const ours = new Registry();
    const theirs = new Registry();
    const family = {
      name: 'op_seconds',
      help: 'Latency "of" ops\\',
      labelNames: ['operation', 'outcome'] as Array<'operation' | 'outcome'>,
      buckets: BUCKETS,
    };
    const mine = new LabelledHistogram({ ...family, registers: [ours] });
    const reference = new Histogram({ ...family, registers: [theirs] });
    for (const [operation, outcome, seconds] of OBSERVED) {
      mine.labels({ operation, outcome }).observe(seconds);
      reference.labels({ operation, outcome }).observe(seconds);
    }
    t.equal(await ours.metrics(), await theirs.metrics());
    t.match(
      await ours.metrics(),
      /op_seconds_bucket\{le="0.1",operation="Sign",outcome="success"\} 3\n/,
      'cumulative: 0.0004, 0.001 and 0.0999 at or below 0.1',
    );
    const held = mine.labels({ operation: 'Sign', outcome: 'success' });
    ours.resetMetrics();
    t.match(
      await ours.metrics(),
      /op_seconds_count\{operation="Sign",outcome="success"\} 0\n/,
      'reset: every series back to zero',
    );
    held.observe(0.05);
    t.match(
      await ours.metrics(),
      /op_seconds_count\{operation="Sign",outcome="success"\} 1\n/,
      'a child kept across a reset still counts',
    );
  },
);

t.test("a labelled counter exposes exactly what prom-client's own counter does", async (t) => {
  const ours = new Registry();
  const theirs = new Registry();
  const family = { name: 'calls_total', help: 'Calls.', labelNames: ['route', 'status'] as Array<'route' | 'status'> };
  const mine = new LabelledCounter({ ...family, registers: [ours] });
  const reference = new Counter({ ...family, registers: [theirs] });
  t.equal(await ours.metrics(), await theirs.metrics(), 'nothing counted yet: no series');
  for (const [route, status, by] of [
    ['/v1/keys', '200', 1],
    ['/v1/keys/:id', '404', 2],
    ['/v1/keys', '200', 3],
    ['we"ird\n', '500', 1],
  ] as const) {
    mine.labels({ route, status }).inc(by);
    reference.labels({ route, status }).inc(by);
  }
  t.equal(await ours.metrics(), await theirs.metrics());
  t.match(await ours.metrics(), /calls_total\{route="\/v1\/keys",status="200"\} 4\n/);
});

t.test('a child is the same object for the same labels, so callers may keep it', async (t) => {
  const counter = new LabelledCounter({ name: 'c_total', help: 'c', labelNames: ['a', 'b'], registers: [] });
  t.equal(counter.labels({ a: 'x', b: 'y' }), counter.labels({ b: 'y', a: 'x' }));
  t.not(counter.labels({ a: 'x', b: 'y' }), counter.labels({ a: 'xy', b: '' }), 'values are not run together');
});
