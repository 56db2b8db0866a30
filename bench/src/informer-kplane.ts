/** kplane's side of the informer benchmark: its informer over HTTPS from a kubeconfig. */
import { clientFromKubeconfig } from '@kplane/client';
import { ConfigMaps, createInformer, createInformerFactory, type Informer } from '@kplane/runtime';
import type { SyncSubject } from './informer-bench.js';

/** Options of prepareKplaneInformer. */
export interface KplaneInformerOptions {
  /**
   * How the informer reads its first list: 'streaming' (the default of kplane's informers, the
   * benchmarked case: one watch with sendInitialEvents) or 'paged' (pages of 500 and a watch,
   * as client-go's reflector does by default; for information).
   */
  initialList?: 'streaming' | 'paged';
}

/**
 * kplane: `createInformerFactory({ client: clientFromKubeconfig(kubeconfig), namespace })
 * .informerFor(ConfigMaps)`, started and awaited with `waitForCacheSync` (or, with `initialList:
 * 'paged'`, a `createInformer` listing in pages of 500). One onAdd handler counts adds, as in
 * the client-node case.
 */
export async function prepareKplaneInformer(kubeconfig: string, namespace: string, options: KplaneInformerOptions = {}): Promise<SyncSubject> {
  const client = clientFromKubeconfig(kubeconfig);
  const onError = (err: unknown): void => console.error('kplane informer:', err);
  const stopping = new AbortController();
  let informer: Informer;
  let run: () => Promise<boolean>;
  let stopped: () => Promise<void>;
  if ((options.initialList ?? 'streaming') === 'streaming') {
    const factory = createInformerFactory({ client, namespace, onError: (_resource, err) => onError(err) });
    informer = factory.informerFor(ConfigMaps);
    run = () => (factory.start(stopping.signal), factory.waitForCacheSync());
    stopped = () => factory.shutdown();
  } else {
    const single = createInformer({ api: client.resource(ConfigMaps), namespace, initialList: 'paged', pageSize: 500, onError });
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
