/**
 * prom-client's four classes the runtime uses, loaded without the rest of the package: its
 * main module also loads the default process metrics, the push gateway and the cluster
 * aggregator (and through them @opentelemetry/api), about 50 ms of every import of the runtime.
 * These are the very classes its main module exports (the same module files), so metrics made
 * here register with any prom-client Registry. Should a later prom-client lay its files out
 * otherwise, the main module is used.
 */
import { createRequire } from 'node:module';
import type * as Prom from 'prom-client';

const load = createRequire(import.meta.url);

function classes(): Pick<typeof Prom, 'Counter' | 'Gauge' | 'Histogram' | 'Registry'> {
  try {
    const out = {
      Counter: load('prom-client/lib/counter') as typeof Prom.Counter,
      Gauge: load('prom-client/lib/gauge') as typeof Prom.Gauge,
      Histogram: load('prom-client/lib/histogram') as typeof Prom.Histogram,
      Registry: load('prom-client/lib/registry') as typeof Prom.Registry,
    };
    if (Object.values(out).every((c) => typeof c === 'function')) return out;
  } catch {
    // another layout: the main module below
  }
  return load('prom-client') as typeof Prom;
}

const prom = classes();
/** prom-client's Counter class. */
export const Counter = prom.Counter;
/** prom-client's Gauge class. */
export const Gauge = prom.Gauge;
/** prom-client's Histogram class. */
export const Histogram = prom.Histogram;
/** prom-client's Registry class. */
export const Registry = prom.Registry;
