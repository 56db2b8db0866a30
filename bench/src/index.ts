export * from './load.js';
export * from './bare-server.js';
export * from './child.js';
export * from './report.js';
export * from './list-bench.js';
