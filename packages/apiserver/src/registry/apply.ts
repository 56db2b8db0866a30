/**
 * Server-side apply through the generic store: an applied configuration is checked as
 * kube-apiserver checks an apply patch, merged into the live object (or becomes it: create by
 * apply) by `@kplane/api`'s field manager, and written through the store's create or update
 * path with the managedFields the apply computed.
 */
import type { KubeObject } from '@kplane/api';
import { FieldSet, applyConfiguration, badRequest, conflictError, decodeManagedFields, encodeManagedFields, invalid, managerKey, pruneUnknownFields } from '@kplane/api';
import type { ApplyOptions, Store } from './store.js';
import { getPath, setPath } from './object-paths.js';

function meta(obj: KubeObject): NonNullable<KubeObject['metadata']> {
  if (!obj.metadata || typeof obj.metadata !== 'object' || Array.isArray(obj.metadata)) obj.metadata = {};
  return obj.metadata;
}

/**
 * Applies `config` to object `name` of `store` (creating it when absent): the manager's Apply
 * entry owns exactly the configuration's fields; a different value of a field another manager
 * owns is a 409 with one cause per field unless `force`.
 */
export async function applyObject(store: Store, namespace: string | undefined, name: string, config: KubeObject, opts: ApplyOptions = {}): Promise<{ object: KubeObject; created: boolean }> {
  if (config === null || typeof config !== 'object' || Array.isArray(config)) throw badRequest('the body of the request must be a JSON object');
  if (config.apiVersion !== store.apiVersion) {
    throw badRequest(`Incorrect version specified in apply patch. Specified patch version: ${String(config.apiVersion ?? '')}, expected: ${store.apiVersion}`);
  }
  if (config.metadata?.managedFields != null) throw badRequest('metadata.managedFields must be nil');
  const bodyName = config.metadata?.name;
  if (bodyName !== undefined && bodyName !== name) {
    throw badRequest(`the name of the object (${String(bodyName)}) does not match the name on the URL (${name})`);
  }
  // Apply knows only the fields the schema declares, whatever fieldValidation says.
  const unknown = pruneUnknownFields(structuredClone(config), store.schema(), store.definitions);
  if (unknown.length) {
    const errs = unknown.map((p) => `.${p}: field not declared in schema`);
    const ns = store.type.namespaced ? (namespace ?? '') : '';
    throw badRequest(`failed to create typed patch object (${ns}/${name}; ${store.apiVersion}, Kind=${store.type.kind}): ${errs.length === 1 ? errs[0] : ['errors:', ...errs.map((e) => `  ${e}`)].join('\n')}`);
  }
  // The configuration is type-checked as a body is, but merged with its nulls: a null applied
  // to a field removes it from the object (structured merge keeps nulls; Go's decoding of the
  // merged object then drops them) and is owned by the applier.
  const checked = structuredClone(config);
  store.admitBody(checked, opts);
  config = { ...config, kind: checked.kind, apiVersion: checked.apiVersion };
  const sub = opts.subresource ?? '';
  const ctx = store.fieldManagerContext(opts, sub);
  const pinned = config.metadata?.resourceVersion;
  if (!(await store.exists(namespace, name))) {
    if (sub) throw store.notFound(name);
    const obj = applyConfiguration(undefined, config, ctx, { force: opts.force });
    meta(obj).name = name;
    const created = await store.create(namespace, obj, { ...opts, warnings: [], applied: true });
    return { object: created, created: true };
  }
  const object = await store.guaranteedUpdate(
    namespace,
    name,
    (current) => {
      const next = applyConfiguration(current, config, ctx, { force: opts.force });
      if (pinned) meta(next).resourceVersion = pinned;
      else delete meta(next).resourceVersion;
      return next;
    },
    { ...opts, warnings: [], applied: true, subresource: sub },
  );
  return { object, created: false };
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
          throw invalid('autoscaling', 'Scale', name, [{ reason: 'FieldValueInvalid', field: 'spec.replicas', message: `Invalid value: ${JSON.stringify(replicas)}: must be greater than or equal to 0` }]);
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
