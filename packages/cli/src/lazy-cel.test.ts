import { it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

it('a fresh control plane with no CRD, policy or webhook never loads the CEL library, not even for a write', async () => {
  const controlPlane = new URL('./control-plane.js', import.meta.url).href;
  // The loader module of the very @kplane/apiserver the control plane imports.
  const loader = new URL('./crd/cel/load.js', pathToFileURL(createRequire(import.meta.url).resolve('@kplane/apiserver'))).href;
  const script = `
    const { startControlPlane } = await import(${JSON.stringify(controlPlane)});
    const { celLoaded } = await import(${JSON.stringify(loader)});
    const cp = await startControlPlane({ storage: 'memory', listen: false, controllers: true, nodes: 1 });
    const started = celLoaded();
    const cms = cp.client.resource({ group: '', version: 'v1', resource: 'configmaps', namespaced: true });
    await cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { a: '1' } });
    const written = celLoaded();
    await cp.stop();
    console.log(JSON.stringify({ started, written }));
    process.exit(0);
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.deepEqual(JSON.parse(stdout.trim().split('\n').pop()!), { started: false, written: false });
});
