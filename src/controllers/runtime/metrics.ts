// A minimal Prometheus registry (counters, gauges, histograms with labels) rendering the text exposition
// format, so controller metrics reach the hub's /metrics without a client library.

export type Labels = Readonly<Record<string, string>>;

export interface MetricOptions {
  /** `[a-zA-Z_:][a-zA-Z0-9_:]*`; counters should end in `_total`. */
  name: string;
  help: string;
  labelNames?: readonly string[];
}

export interface GaugeOptions extends MetricOptions {
  /** Called before each render to refresh values that are cheaper to read than to track. */
  collect?: (gauge: Gauge) => void;
}

export interface HistogramOptions extends MetricOptions {
  /** Upper bounds in ascending order; `+Inf` is implicit. Default: Prometheus' default buckets. */
  buckets?: readonly number[];
}

/** Prometheus' client default buckets (seconds). */
export const DEFAULT_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

type MetricType = 'counter' | 'gauge' | 'histogram';

abstract class Metric<Series> {
  abstract readonly type: MetricType;
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  /** Keyed by the label values in `labelNames` order, so one label set is one series. */
  protected readonly series = new Map<string, { values: string[]; data: Series }>();

  constructor(options: MetricOptions) {
    if (!METRIC_NAME.test(options.name))
      throw new Error(`invalid metric name ${JSON.stringify(options.name)}`);
    for (const label of options.labelNames ?? []) {
      if (!LABEL_NAME.test(label) || label.startsWith('__') || label === 'le') {
        throw new Error(`invalid label name ${JSON.stringify(label)} on metric ${options.name}`);
      }
    }
    this.name = options.name;
    this.help = options.help;
    this.labelNames = [...(options.labelNames ?? [])];
  }

  protected abstract initial(): Series;

  protected seriesFor(labels: Labels | undefined): Series {
    const given = labels ?? {};
    for (const key of Object.keys(given)) {
      if (!this.labelNames.includes(key))
        throw new Error(`metric ${this.name} has no label ${JSON.stringify(key)}`);
    }
    const values = this.labelNames.map((l) => given[l] ?? '');
    const key = JSON.stringify(values);
    let entry = this.series.get(key);
    if (!entry) {
      entry = { values, data: this.initial() };
      this.series.set(key, entry);
    }
    return entry.data;
  }

  protected labelText(values: readonly string[], extra?: [string, string]): string {
    const pairs = this.labelNames.map((name, i) => `${name}="${escapeLabel(values[i] ?? '')}"`);
    if (extra) pairs.push(`${extra[0]}="${escapeLabel(extra[1])}"`);
    return pairs.length ? `{${pairs.join(',')}}` : '';
  }

  abstract renderSeries(): string[];

  render(): string {
    const lines = [`# HELP ${this.name} ${escapeHelp(this.help)}`, `# TYPE ${this.name} ${this.type}`];
    return [...lines, ...this.renderSeries()].join('\n');
  }
}

export class Counter extends Metric<{ value: number }> {
  readonly type = 'counter';

  protected initial(): { value: number } {
    return { value: 0 };
  }

  inc(labels?: Labels, value = 1): void {
    if (!(value >= 0)) throw new Error(`counter ${this.name} can only increase (got ${value})`);
    this.seriesFor(labels).value += value;
  }

  get(labels?: Labels): number {
    return this.seriesFor(labels).value;
  }

  renderSeries(): string[] {
    return [...this.series.values()].map(
      (s) => `${this.name}${this.labelText(s.values)} ${formatNumber(s.data.value)}`,
    );
  }
}

export class Gauge extends Metric<{ value: number }> {
  readonly type = 'gauge';
  private readonly collectFn: ((gauge: Gauge) => void) | undefined;

  constructor(options: GaugeOptions) {
    super(options);
    this.collectFn = options.collect;
  }

  protected initial(): { value: number } {
    return { value: 0 };
  }

  set(labels: Labels, value: number): void {
    this.seriesFor(labels).value = value;
  }

  inc(labels?: Labels, value = 1): void {
    this.seriesFor(labels).value += value;
  }

  dec(labels?: Labels, value = 1): void {
    this.seriesFor(labels).value -= value;
  }

  get(labels?: Labels): number {
    return this.seriesFor(labels).value;
  }

  renderSeries(): string[] {
    this.collectFn?.(this);
    return [...this.series.values()].map(
      (s) => `${this.name}${this.labelText(s.values)} ${formatNumber(s.data.value)}`,
    );
  }
}

interface HistogramSeries {
  /** Non-cumulative count per bucket; rendering makes them cumulative. */
  counts: number[];
  sum: number;
  count: number;
}

export class Histogram extends Metric<HistogramSeries> {
  readonly type = 'histogram';
  readonly buckets: readonly number[];

  constructor(options: HistogramOptions) {
    super(options);
    const buckets = [...(options.buckets ?? DEFAULT_BUCKETS)];
    for (let i = 1; i < buckets.length; i++) {
      if (!(buckets[i]! > buckets[i - 1]!)) throw new Error(`histogram ${this.name}: buckets must increase`);
    }
    this.buckets = buckets;
  }

  protected initial(): HistogramSeries {
    return { counts: this.buckets.map(() => 0), sum: 0, count: 0 };
  }

  observe(labels: Labels | undefined, value: number): void {
    const s = this.seriesFor(labels);
    const i = this.buckets.findIndex((b) => value <= b);
    if (i >= 0) s.counts[i]! += 1;
    s.sum += value;
    s.count += 1;
  }

  /** Count and sum for one label set (tests and health checks). */
  get(labels?: Labels): { count: number; sum: number } {
    const s = this.seriesFor(labels);
    return { count: s.count, sum: s.sum };
  }

  renderSeries(): string[] {
    const lines: string[] = [];
    for (const { values, data } of this.series.values()) {
      let cumulative = 0;
      this.buckets.forEach((bound, i) => {
        cumulative += data.counts[i]!;
        lines.push(`${this.name}_bucket${this.labelText(values, ['le', formatNumber(bound)])} ${cumulative}`);
      });
      lines.push(`${this.name}_bucket${this.labelText(values, ['le', '+Inf'])} ${data.count}`);
      lines.push(`${this.name}_sum${this.labelText(values)} ${formatNumber(data.sum)}`);
      lines.push(`${this.name}_count${this.labelText(values)} ${data.count}`);
    }
    return lines;
  }
}

/**
 * Holds metrics by name. Asking again for a metric with the same name, type and labels returns the
 * existing one, so every controller can declare the shared controller metrics without coordination.
 */
export class MetricsRegistry {
  /** The Content-Type of `render()`'s output. */
  static readonly contentType = 'text/plain; version=0.0.4; charset=utf-8';
  private readonly metrics = new Map<string, Counter | Gauge | Histogram>();

  counter(options: MetricOptions): Counter {
    return this.register(options, 'counter', () => new Counter(options));
  }

  gauge(options: GaugeOptions): Gauge {
    return this.register(options, 'gauge', () => new Gauge(options));
  }

  histogram(options: HistogramOptions): Histogram {
    return this.register(options, 'histogram', () => new Histogram(options));
  }

  /** Every metric in registration order, in the Prometheus text exposition format (version 0.0.4). */
  render(): string {
    const blocks = [...this.metrics.values()].map((m) => m.render());
    return blocks.length ? `${blocks.join('\n')}\n` : '';
  }

  private register<M extends Counter | Gauge | Histogram>(
    options: MetricOptions,
    type: MetricType,
    make: () => M,
  ): M {
    const existing = this.metrics.get(options.name);
    if (existing) {
      const sameLabels = existing.labelNames.join(',') === (options.labelNames ?? []).join(',');
      if (existing.type !== type || !sameLabels) {
        throw new Error(
          `metric ${options.name} is already registered as a ${existing.type} with other labels`,
        );
      }
      return existing as M;
    }
    const metric = make();
    this.metrics.set(options.name, metric);
    return metric;
  }
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function escapeHelp(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function formatNumber(n: number): string {
  if (n === Infinity) return '+Inf';
  if (n === -Infinity) return '-Inf';
  if (Number.isNaN(n)) return 'NaN';
  return String(n);
}
