import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as publicApi from './index.js';
import * as internal from './internal.js';

test('the building blocks are in @kplane/client/internal, not in the public API', () => {
  const blocks = ['resourcePath', 'groupVersionPath', 'errorFromResponse', 'apiErrorFromStatus', 'genericServerError', 'readAll', 'responseBytes', 'tryParseJson', 'decodeWatchEvents', 'decodeWatchEventBatches', 'splitLines', 'watchDecodeErrorStatus'];
  for (const name of blocks) assert.ok(name in internal, `${name} in internal`);
  assert.deepEqual(Object.keys(internal).filter((n) => n in publicApi), []);
});

test('the public API keeps what a user calls', () => {
  for (const name of ['createClient', 'createHttpsTransport', 'loadKubeconfig', 'transportFromKubeconfig', 'clientFromKubeconfig', 'KubeconfigError', 'responseText', 'isStatus']) {
    assert.ok(name in publicApi, name);
  }
});
