import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatTable, formatThroughput, formatTimings, ratio } from './report.js';

const result = (rps: number) => ({ requests: rps, sent: rps, errors: 0, seconds: 1, rps, p50Ms: 1.25, p99Ms: 9, latenciesMs: [] });

test('ratio formats two decimals and needs a baseline', () => {
  assert.equal(ratio(500, 1000), '0.50x');
  assert.equal(ratio(1234, 1000), '1.23x');
  assert.equal(ratio(10, undefined), '-');
  assert.equal(ratio(10, 0), '-');
});

test('formatTable pads columns and right-aligns the numeric ones', () => {
  const out = formatTable([['a', 'n'], ['long name', '5'], ['b', '123']], [1]);
  assert.equal(out, ['a            n', '---------  ---', 'long name    5', 'b          123'].join('\n'));
});

test('formatThroughput shows ratio and whether the target is met', () => {
  const out = formatThroughput([
    { name: 'base', result: result(1000), baselineRps: 1000, baselineUsPerReq: 30.7, cpu: { serverCores: 0.98, clientCores: 1.03, serverUsPerReq: 61.4 } },
    { name: 'fast', result: result(600), baselineRps: 1000, target: 0.5 },
    { name: 'slow', result: result(200), baselineRps: 1000, target: 0.3 },
  ]);
  const lines = out.split('\n');
  assert.match(lines[0]!, /^case\s+req\/s\s+vs bare https\s+target\s+p50 ms\s+p99 ms\s+server us\/req\s+cpu ratio\s+cores srv\/cli\s+errors$/);
  assert.match(lines[2]!, /^base\s+1000\s+1\.00x\s+1\.3\s+9\.0\s+61\s+0\.50x\s+0\.98\/1\.03\s+0$/);
  assert.match(lines[3]!, /\s-\s+-\s+-\s+0$/);
  assert.match(lines[3]!, /^fast\s+600\s+0\.60x\s+>=0\.5x met\s/);
  assert.match(lines[4]!, /^slow\s+200\s+0\.20x\s+>=0\.3x MISSED\s/);
});

test('formatTimings rounds milliseconds', () => {
  const out = formatTimings([{ name: 'LIST', ms: 123.6, note: 'median of 3' }]);
  assert.match(out.split('\n')[2]!, /^LIST\s+124\s+median of 3$/);
});
