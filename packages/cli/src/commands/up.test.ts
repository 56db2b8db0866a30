import { it } from 'node:test';
import assert from 'node:assert/strict';
import { parsePortForwards } from './up.js';

it('parses --port-forward: POD_PORT=HOST:PORT, =PORT for 127.0.0.1, repeated or comma-separated', () => {
  assert.deepEqual(
    [...parsePortForwards(['80=127.0.0.1:8080,443=8443', '5432=[::1]:15432'])],
    [
      [80, { host: '127.0.0.1', port: 8080 }],
      [443, { host: '127.0.0.1', port: 8443 }],
      [5432, { host: '::1', port: 15432 }],
    ],
  );
  assert.throws(() => parsePortForwards(['80']), /--port-forward: expected POD_PORT=HOST:PORT, not "80"/);
  assert.throws(() => parsePortForwards(['0=1']), /--port-forward: the pod port is not a port number in "0"/);
  assert.throws(() => parsePortForwards(['80=host:70000']), /the local port is not a port number/);
});
