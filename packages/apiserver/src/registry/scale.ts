/**
 * The scale subresource through the generic store: the autoscaling/v1 Scale of an object
 * (its spec and status replicas and selector at the paths the kind declares), its update, and
 * its server-side apply.
 */
import type { KubeObject } from '@kplane/api';
import { FieldSet, badRequest, conflictError, decodeManagedFields, encodeManagedFields, invalid, managerKey } from '@kplane/api';
import type { ApplyOptions, Store, WriteOptions } from './store.js';
import { getPath, setPath } from './object-paths.js';
import { meta } from './apply.js';
import { selectorString } from '../kinds/util.js';

function invalidReplicas(name: string, replicas: unknown) {
  return invalid('autoscaling', 'Scale', name, [{ reason: 'FieldValueInvalid', field: 'spec.replicas', message: `Invalid value: ${JSON.stringify(replicas)}: must be greater than or equal to 0` }]);
}

/** Builds the autoscaling/v1 Scale of an object of `store`'s kind. */
export function scaleOf(store: Store, obj: KubeObject): KubeObject {
  const spec = store.type.subresources?.scale;
  if (!spec) throw store.notFound(obj.metadata?.name ?? '');
  const m = meta(obj);
  const status: Record<string, unknown> = { replicas: Number(getPath(obj, spec.statusReplicasPath) ?? 0) };
  const sel = spec.labelSelectorPath ? getPath(obj, spec.labelSelectorPath) : undefined;
  if (typeof sel === 'string' && sel) status.selector = sel;
  else if (sel && typeof sel === 'object' && spec.labelSelectorIsMap) status.selector = formatSet(sel as Record<string, unknown>);
  else if (sel && typeof sel === 'object') status.selector = selectorString(sel);
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: {
      name: m.name,
      namespace: m.namespace,
      uid: m.uid,
      resourceVersion: m.resourceVersion,
      creationTimestamp: m.creationTimestamp,
    },
    spec: { replicas: Number(getPath(obj, spec.specReplicasPath) ?? 0) },
    status,
  };
}

/** Writes the Scale `mutate` makes of the object's back into its spec replicas; returns the object as written. */
export async function updateScaleObject(store: Store, namespace: string | undefined, name: string, mutate: (scale: KubeObject) => KubeObject | Promise<KubeObject>, opts: WriteOptions = {}): Promise<KubeObject> {
  const spec = store.type.subresources?.scale;
  if (!spec) throw store.notFound(name);
  return store.guaranteedUpdate(namespace, name, async (current) => {
    const scale = await mutate(scaleOf(store, current));
    store.admitBody(scale, opts, 'Scale', 'autoscaling/v1');
    const replicas = (scale.spec as { replicas?: unknown } | undefined)?.replicas;
    if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) throw invalidReplicas(name, replicas);
    const next = structuredClone(current);
    setPath(next, spec.specReplicasPath, replicas);
    const rv = scale.metadata?.resourceVersion;
    if (rv) meta(next).resourceVersion = rv;
    else delete meta(next).resourceVersion;
    return next;
  }, { ...opts, subresource: 'scale' });
}

/**
 * Server-side apply of an autoscaling/v1 Scale: its spec.replicas is the object's replicas
 * field, owned by the manager's Apply entry with subresource "scale"; a different value owned
 * by another manager conflicts unless forced. Returns the object as written.
 */
export async function applyScaleObject(store: Store, namespace: string | undefined, name: string, config: KubeObject, opts: ApplyOptions = {}): Promise<KubeObject> {
  const spec = store.type.subresources?.scale;
  if (!spec) throw store.notFound(name);
  if (config === null || typeof config !== 'object' || Array.isArray(config)) throw badRequest('the body of the request must be a JSON object');
  if (config.apiVersion !== 'autoscaling/v1') {
    throw badRequest(`Incorrect version specified in apply patch. Specified patch version: ${String(config.apiVersion ?? '')}, expected: autoscaling/v1`);
  }
  if (config.metadata?.managedFields != null) throw badRequest('metadata.managedFields must be nil');
  const path: string[] = spec.specReplicasPath.replace(/^\./, '').split('.').map((f) => `f:${f}`);
  const replicas = (config.spec as { replicas?: unknown } | undefined)?.replicas;
  const ctx = store.fieldManagerContext(opts, 'scale');
  return store.guaranteedUpdate(
    namespace,
    name,
    (current) => {
      const next = structuredClone(current);
      const wanted = replicas !== undefined && getPath(current, spec.specReplicasPath) !== replicas;
      let managed: ReturnType<typeof decodeManagedFields>;
      try {
        managed = decodeManagedFields(current.metadata?.managedFields);
      } catch {
        managed = new Map();
      }
      const self = [...managed.entries()].find(([, m]) => m.manager === ctx.manager && m.operation === 'Apply' && m.subresource === 'scale');
      const conflicts = wanted ? [...managed.values()].filter((m) => m !== self?.[1] && m.set.has(path)).map((m) => ({ manager: m, path })) : [];
      if (conflicts.length && !opts.force) throw conflictError(conflicts);
      for (const c of conflicts) c.manager.set = c.manager.set.difference(FieldSet.of(path));
      if (replicas !== undefined) {
        if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
          throw invalidReplicas(name, replicas);
        }
        setPath(next, spec.specReplicasPath, replicas);
        const id = { manager: ctx.manager, operation: 'Apply' as const, apiVersion: 'autoscaling/v1', subresource: 'scale' };
        managed.set(managerKey(id), { ...id, time: ctx.time, set: FieldSet.of(path) });
      } else if (self) managed.delete(self[0]);
      meta(next).managedFields = encodeManagedFields(managed);
      delete meta(next).resourceVersion;
      return next;
    },
    { ...opts, warnings: [], applied: true, subresource: 'scale' },
  );
}

/** labels.SelectorFromSet(set).String(): "a=b,c=d" sorted by key. */
function formatSet(set: Record<string, unknown>): string {
  return Object.keys(set)
    .sort()
    .map((k) => `${k}=${String(set[k])}`)
    .join(',');
}
