/** kplane's side of the informer benchmark: its informer over HTTPS from a kubeconfig. */
import { clientFromKubeconfig } from '@kplane/client';
import { ConfigMaps, createInformer, createInformerFactory, type Informer } from '@kplane/runtime';
import type { SyncSubject } from './informer-bench.js';

/** Options of prepareKplaneInformer. */
export interface KplaneInformerOptions {
  /**
   * Without it (the benchmarked case): the shared informer factory, which lists in pages of
   * 500. With a number: a plain `createInformer` listing in pages of that size, 0 meaning one
   * unpaged list (for information: separates the informer's own cost from the server's paging).
   */
  pageSize?: number;
}

/**
 * kplane: `createInformerFactory({ client: clientFromKubeconfig(kubeconfig), namespace })
 * .informerFor(ConfigMaps)`, started and awaited with `waitForCacheSync`. One onAdd handler
 * counts adds, as in the client-node case.
 */
export async function prepareKplaneInformer(kubeconfig: string, namespace: string, options: KplaneInformerOptions = {}): Promise<SyncSubject> {
  const client = clientFromKubeconfig(kubeconfig);
  const onError = (err: unknown): void => console.error('kplane informer:', err);
  const stopping = new AbortController();
  let informer: Informer;
  let run: () => Promise<boolean>;
  let stopped: () => Promise<void>;
  if (options.pageSize === undefined) {
    const factory = createInformerFactory({ client, namespace, onError: (_resource, err) => onError(err) });
    informer = factory.informerFor(ConfigMaps);
    run = () => (factory.start(stopping.signal), factory.waitForCacheSync());
    stopped = () => factory.shutdown();
  } else {
    const single = createInformer({ api: client.resource(ConfigMaps), namespace, pageSize: options.pageSize, onError });
    let running: Promise<void> | undefined;
    informer = single;
    run = () => ((running = single.run(stopping.signal)), single.waitForSync());
    stopped = async () => running;
  }
  let adds = 0;
  informer.addEventHandler({ onAdd: () => void adds++ });
  return {
    async sync() {
      if (!(await run())) throw new Error('kplane informer did not sync');
      if (adds !== informer.store.size()) throw new Error(`kplane informer: ${adds} adds for ${informer.store.size()} cached objects`);
      return informer.store.size();
    },
    async stop() {
      stopping.abort();
      await stopped();
      client.transport.close();
    },
  };
}
