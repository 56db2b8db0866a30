/** The garbage collector: owner references, propagation policies and the owner graph. */
export { createGarbageCollector, type GarbageCollector, type GarbageCollectorOptions } from './garbage-collector.js';
export { benchGarbageCollector, type GarbageCollectorBenchResult } from './bench.js';
