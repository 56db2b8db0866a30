/**
 * The scheduler's part in delayed volume binding (kube-scheduler's VolumeBinding plugin, its
 * PreBind step, reduced): before a pod is bound, each unbound claim it uses whose class binds
 * WaitForFirstConsumer is annotated `volume.kubernetes.io/selected-node` with the chosen node,
 * so the volume controller provisions (or binds) it.
 */
import { ApiError } from '@kplane/api';
import type { Client } from '@kplane/client';
import { PersistentVolumeClaims, StorageClasses, type kinds } from '@kplane/runtime';

/** The annotation naming the node picked for a delayed-binding claim. */
export const ANN_SELECTED_NODE = 'volume.kubernetes.io/selected-node';

/** Annotates the pod's delayed-binding claims with `node`; missing claims and classes are skipped. */
export async function selectNodeForClaims(client: Client, pod: kinds.Pod, node: string): Promise<void> {
  const namespace = pod.metadata?.namespace;
  const names = (pod.spec?.volumes ?? []).flatMap((v) => (v.persistentVolumeClaim?.claimName ? [v.persistentVolumeClaim.claimName] : v.ephemeral ? [`${pod.metadata?.name}-${v.name}`] : []));
  if (names.length === 0) return;
  const claims = client.resource(PersistentVolumeClaims);
  const classes = client.resource(StorageClasses);
  for (const name of names) {
    try {
      const claim = await claims.get(name, { namespace });
      if (claim.spec?.volumeName || claim.metadata?.annotations?.[ANN_SELECTED_NODE] === node) continue;
      const className = claim.spec?.storageClassName;
      if (!className) continue;
      const cls = await classes.get(className);
      if (cls.volumeBindingMode !== 'WaitForFirstConsumer') continue;
      await claims.patch(name, { metadata: { annotations: { [ANN_SELECTED_NODE]: node } } }, 'merge', { namespace });
    } catch (err) {
      if (err instanceof ApiError && (err.code === 404 || err.code === 403)) continue;
      throw err;
    }
  }
}
