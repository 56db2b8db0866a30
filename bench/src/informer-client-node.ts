/** The reference side of the informer benchmark: @kubernetes/client-node 1.x's `makeInformer`. */
import { CoreV1Api, KubeConfig, makeInformer, type V1ConfigMap } from '@kubernetes/client-node';
import type { SyncSubject } from './informer-bench.js';

/**
 * client-node 1.x: `makeInformer(kc, '/api/v1/namespaces/<ns>/configmaps', () =>
 * coreApi.listNamespacedConfigMap({ namespace }))`. Synced when its 'add' count reaches
 * `expected` or `start()` (list, adds, watch opened) resolves, whichever comes first.
 */
export async function prepareClientNodeInformer(kubeconfig: string, namespace: string, expected: number): Promise<SyncSubject> {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  const coreApi = kc.makeApiClient(CoreV1Api);
  const informer = makeInformer<V1ConfigMap>(kc, `/api/v1/namespaces/${namespace}/configmaps`, () => coreApi.listNamespacedConfigMap({ namespace }));
  let adds = 0;
  let reached: (() => void) | undefined;
  informer.on('add', () => {
    if (++adds === expected) reached?.();
  });
  return {
    async sync() {
      const failed = new Promise<never>((_, reject) => informer.on('error', (err) => reject(err instanceof Error ? err : new Error(String(err)))));
      const counted = new Promise<void>((resolve) => (reached = resolve));
      await Promise.race([counted, informer.start(), failed]);
      return informer.list(namespace).length;
    },
    async stop() {
      await informer.stop();
    },
  };
}
