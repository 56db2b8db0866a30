/**
 * The secret-copier controller: every ConfigMap labelled `sample.kplane.dev/copy-to-secret:
 * "true"` gets a Secret of the same name and namespace holding the same data. The Secret is
 * owned by the ConfigMap (deleted with it by the garbage collector); a change to either wakes
 * the ConfigMap's reconcile, which is level-driven: it reads the ConfigMap from the cache and
 * writes the Secret it should have, whatever event woke it.
 */
import { Action, ConfigMaps, Secrets, createOrUpdate, setControllerReference, type ConfigMap, type Manager, type Secret } from '@kplane/runtime';

/** The label that asks for a copy. */
export const COPY_LABEL = 'sample.kplane.dev/copy-to-secret';

/** The data of the Secret copied from cm: each value base64-encoded, binaryData kept as it is. */
export function secretData(cm: ConfigMap): Record<string, string> {
  const data: Record<string, string> = {};
  for (const [k, v] of Object.entries(cm.data ?? {})) data[k] = Buffer.from(v, 'utf8').toString('base64');
  for (const [k, v] of Object.entries(cm.binaryData ?? {})) data[k] = v;
  return data;
}

/** Registers the secret-copier controller with the manager. */
export function addSecretCopier(mgr: Manager): void {
  const configMaps = mgr.factory.informerFor<ConfigMap>(ConfigMaps);
  const secrets = mgr.client.resource(Secrets);
  mgr
    .controller()
    .named('secret-copier')
    .for(ConfigMaps)
    .owns(Secrets) // an edited or deleted Secret wakes its ConfigMap, which puts it back
    .complete(async ({ namespace, name, key }, { signal }) => {
      const cm = configMaps.store.get(key); // from the cache: frozen, never mutate
      if (!cm || cm.metadata?.labels?.[COPY_LABEL] !== 'true' || cm.metadata.deletionTimestamp) return Action.awaitChange();
      await createOrUpdate<Secret>(
        secrets,
        { namespace, name },
        (secret) => {
          secret.type ??= 'Opaque';
          secret.data = secretData(cm);
          setControllerReference(cm, secret);
        },
        { signal },
      );
      return Action.awaitChange();
    });
}
