import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MetricsRegistry } from './metrics.js';

describe('MetricsRegistry', () => {
  it('renders counters, gauges and histograms in the Prometheus text format', () => {
    const r = new MetricsRegistry();
    const c = r.counter({
      name: 'x_total',
      help: 'Things.\nTwo lines',
      labelNames: ['controller', 'result'],
    });
    c.inc({ controller: 'ns', result: 'success' });
    c.inc({ controller: 'ns', result: 'success' }, 2);
    c.inc({ controller: 'a"b\\c', result: 'error' });
    const g = r.gauge({ name: 'depth', help: 'Depth.', collect: (gauge) => gauge.set({}, 7) });
    const h = r.histogram({
      name: 'dur_seconds',
      help: 'Duration.',
      labelNames: ['controller'],
      buckets: [0.1, 1],
    });
    h.observe({ controller: 'ns' }, 0.05);
    h.observe({ controller: 'ns' }, 0.5);
    h.observe({ controller: 'ns' }, 3);
    assert.equal(g.get(), 0);
    assert.equal(
      r.render(),
      [
        '# HELP x_total Things.\\nTwo lines',
        '# TYPE x_total counter',
        'x_total{controller="ns",result="success"} 3',
        'x_total{controller="a\\"b\\\\c",result="error"} 1',
        '# HELP depth Depth.',
        '# TYPE depth gauge',
        'depth 7',
        '# HELP dur_seconds Duration.',
        '# TYPE dur_seconds histogram',
        'dur_seconds_bucket{controller="ns",le="0.1"} 1',
        'dur_seconds_bucket{controller="ns",le="1"} 2',
        'dur_seconds_bucket{controller="ns",le="+Inf"} 3',
        'dur_seconds_sum{controller="ns"} 3.55',
        'dur_seconds_count{controller="ns"} 3',
        '',
      ].join('\n'),
    );
  });

  it('returns the same metric for the same declaration and refuses a clashing one', () => {
    const r = new MetricsRegistry();
    const a = r.counter({ name: 'y_total', help: 'Y.', labelNames: ['controller'] });
    const b = r.counter({ name: 'y_total', help: 'Y.', labelNames: ['controller'] });
    assert.equal(a, b);
    assert.throws(() => r.gauge({ name: 'y_total', help: 'Y.' }));
    assert.throws(() => r.counter({ name: 'y_total', help: 'Y.', labelNames: ['other'] }));
  });

  it('rejects bad names, unknown labels and decreasing counters', () => {
    const r = new MetricsRegistry();
    assert.throws(() => r.counter({ name: 'bad-name', help: '' }));
    assert.throws(() => r.counter({ name: 'ok', help: '', labelNames: ['le'] }));
    const c = r.counter({ name: 'z_total', help: 'Z.', labelNames: ['controller'] });
    assert.throws(() => c.inc({ nope: 'x' }));
    assert.throws(() => c.inc({ controller: 'x' }, -1));
  });
});
