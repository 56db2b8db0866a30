/**
 * Child-process entry of the informer benchmark (run with `--expose-gc`): prepares one informer,
 * measures its first sync and memory with measureSync, and reports the result to the parent.
 * Arguments: <kplane|kplane-paged|client-node> <kubeconfig> <namespace> <expected objects>.
 */
import { reportFromChild } from './child.js';
import { measureSync } from './informer-bench.js';

const [which, kubeconfig, namespace, expectedArg] = process.argv.slice(2);
const expected = Number(expectedArg);
if ((which !== 'kplane' && which !== 'kplane-paged' && which !== 'client-node') || !kubeconfig || !namespace || !(expected >= 0)) {
  throw new Error('usage: probe-informer.js <kplane|kplane-paged|client-node> <kubeconfig> <namespace> <expected>');
}
const gc = globalThis.gc;
if (!gc) throw new Error('probe-informer.js needs node --expose-gc');

await reportFromChild(async () => {
  // Only the library under test is loaded, so the baseline heap holds nothing of the other one.
  const prepare =
    which === 'client-node'
      ? async () => (await import('./informer-client-node.js')).prepareClientNodeInformer(kubeconfig, namespace, expected)
      : async () => (await import('./informer-kplane.js')).prepareKplaneInformer(kubeconfig, namespace, which === 'kplane' ? {} : { initialList: 'paged' });
  const m = await measureSync(prepare, { gc: () => gc() });
  if (m.items !== expected) throw new Error(`${which} informer cached ${m.items} objects, want ${expected}`);
  return m;
});
