export * from './load.js';
export * from './bare-server.js';
export * from './child.js';
export * from './report.js';
export * from './list-bench.js';
export * from './informer-bench.js';
export * from './workqueue-bench.js';
export * from './startup-bench.js';
