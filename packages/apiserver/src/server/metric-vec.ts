/**
 * Counters and histograms with labels, cheap to record on the request path: a series is found
 * through one Map per label and updated in place (prom-client's own vectors hash a
 * label object on every observation, tens of microseconds per request for the dozen series a
 * write touches). They register in a prom-client Registry, which writes the exposition.
 */
import type { Metric, Registry } from 'prom-client';

/** One exported sample, as prom-client's registry reads them. */
interface Sample {
  metricName?: string;
  labels: Record<string, string | number>;
  value: number;
}

/** What prom-client's registry reads of a metric. */
interface Exported {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  values: Sample[];
  aggregator: 'sum';
}

/** A tree of Maps, one level per label: constant label strings keep their hash, so a lookup hashes nothing new. */
type Level = Map<string, Level | { labels: Record<string, string>; child: unknown }>;

abstract class Vec<C> {
  protected readonly series: { labels: Record<string, string>; child: C }[] = [];
  private readonly root: Level = new Map();
  readonly aggregator = 'sum';
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly string[],
    registry: Registry,
  ) {
    registry.registerMetric(this as unknown as Metric);
  }

  /** The series of these label values (in labelNames' order), made on first use. */
  protected child(values: readonly string[]): C {
    let level = this.root;
    const last = values.length - 1;
    for (let i = 0; i < last; i++) {
      let next = level.get(values[i]!) as Level | undefined;
      if (!next) {
        next = new Map();
        level.set(values[i]!, next);
      }
      level = next;
    }
    let s = level.get(values[last]!) as { labels: Record<string, string>; child: C } | undefined;
    if (!s) {
      const labels: Record<string, string> = {};
      this.labelNames.forEach((n, i) => (labels[n] = values[i] ?? ''));
      s = { labels, child: this.make() };
      level.set(values[last]!, s);
      this.series.push(s);
    }
    return s.child;
  }

  protected abstract make(): C;
  /** The exposition's samples (read by the registry at scrape time). */
  abstract get(): Promise<Exported>;
}

/** A counter vector. */
export class CounterVec extends Vec<{ value: number }> {
  readonly type = 'counter';
  protected make() {
    return { value: 0 };
  }
  /** Adds `by` (default 1) to the series of `values`. */
  inc(values: readonly string[], by = 1): void {
    this.child(values).value += by;
  }
  async get(): Promise<Exported> {
    const values = this.series.map((s) => ({ labels: s.labels, value: s.child.value }));
    return { name: this.name, help: this.help, type: 'counter', values, aggregator: 'sum' };
  }
}

/** A histogram vector with fixed upper bounds. */
export class HistogramVec extends Vec<{ counts: number[]; sum: number; count: number }> {
  readonly type = 'histogram';
  constructor(name: string, help: string, labelNames: readonly string[], private readonly buckets: readonly number[], registry: Registry) {
    super(name, help, labelNames, registry);
  }
  protected make() {
    return { counts: new Array<number>(this.buckets.length).fill(0), sum: 0, count: 0 };
  }
  /** Records one observation in the series of `values`. */
  observe(values: readonly string[], value: number): void {
    const c = this.child(values);
    const buckets = this.buckets;
    for (let i = 0; i < buckets.length; i++) {
      if (value <= buckets[i]!) {
        c.counts[i]!++;
        break;
      }
    }
    c.sum += value;
    c.count++;
  }
  async get(): Promise<Exported> {
    const values: Sample[] = [];
    for (const { labels, child } of this.series) {
      let cumulative = 0;
      this.buckets.forEach((b, i) => {
        cumulative += child.counts[i]!;
        values.push({ metricName: `${this.name}_bucket`, labels: { le: b, ...labels }, value: cumulative });
      });
      values.push({ metricName: `${this.name}_bucket`, labels: { le: '+Inf', ...labels }, value: child.count });
      values.push({ metricName: `${this.name}_sum`, labels, value: child.sum });
      values.push({ metricName: `${this.name}_count`, labels, value: child.count });
    }
    return { name: this.name, help: this.help, type: 'histogram', values, aggregator: 'sum' };
  }
}

/** A metric without labels whose value is read when scraped (the process's CPU time, memory). */
export class ScrapedMetric {
  readonly aggregator = 'sum';
  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: 'counter' | 'gauge',
    private readonly read: () => number,
    registry: Registry,
  ) {
    registry.registerMetric(this as unknown as Metric);
  }
  /** The one sample, read now. */
  async get(): Promise<{ name: string; help: string; type: 'counter' | 'gauge'; values: Sample[]; aggregator: 'sum' }> {
    return { name: this.name, help: this.help, type: this.type, values: [{ labels: {}, value: this.read() }], aggregator: 'sum' };
  }
}
